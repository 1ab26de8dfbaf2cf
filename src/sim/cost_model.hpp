#pragma once
// Time of one engine step on the simulated GPU(s), per GPU (TP splits weights, heads and FLOPs):
//   device  = (computeⁿ + memoryⁿ)^(1/n)            a smooth roofline, n = roofline_sharpness
//   compute = FLOPs / (peak · compute_efficiency)   weights: 2·(params − embedding, and the
//             lm_head) per token, plus 2·vocab·hidden (the lm_head) per sampled row; attention:
//             4·layers·heads·head_dim per (query token, context token) pair
//   memory  = (weights streamed + KV read + KV written) / (bandwidth · bandwidth_efficiency / (1 + falloff·(TP−1)))
//             where the weights streamed leave out an untied embedding table (a lookup of a few rows)
//   comm    = 2·layers all-reduces of latency + T·hidden·dtype·2(TP−1)/TP / (link · link_efficiency)
//   step    = device + comm + step_overhead_us + seq_overhead_us · sequences
// No FLOP floor: at small batch compute is tiny and the step streams the weights (memory-bound);
// tile under-use only shows near the ridge, where the smooth maximum exceeds both terms by at most
// 2^(1/n). Formulas, sources and the published comparison are in docs/simulator.md.
#include <cstdint>

#include "core/clock.hpp"
#include "sim/cost_params.hpp"
#include "sim/presets.hpp"

namespace sb::sim {

struct HardwareSetup {
  ModelPreset model;
  GpuPreset gpu;
  CostParams cost;  // the GPU preset's own set, unless a file or flag overrides it
  int tensor_parallel = 1;
};

// What one step computes, summed over the sequences in the batch.
struct StepShape {
  std::int64_t prefill_tokens = 0;  // prompt (or recomputed) tokens processed this step
  std::int64_t decode_tokens = 0;   // one per decoding sequence
  std::int64_t sampled_tokens = 0;  // sequences that emit a token (rows through lm_head)
  double attention_pairs = 0;       // Σ over new tokens of the context length they attend to
  std::int64_t kv_tokens_read = 0;  // Σ over sequences of the cached context read by attention
  std::int64_t num_seqs = 0;

  std::int64_t new_tokens() const { return prefill_tokens + decode_tokens; }
};

struct StepCost {
  double compute_s = 0;  // math alone at the large-GEMM efficiency
  double memory_s = 0;   // bytes alone at the achieved bandwidth
  double device_s = 0;   // the smooth roofline of the two: the GPU's busy time for the math
  double comm_s = 0;
  double overhead_s = 0;

  double busy_s() const { return device_s + comm_s; }
  double total_s() const { return busy_s() + overhead_s; }
  Nanos total_ns() const { return static_cast<Nanos>(total_s() * 1e9 + 0.5); }
};

class CostModel {
 public:
  explicit CostModel(const HardwareSetup& setup);

  StepCost step_cost(const StepShape& shape) const;

  // KV-cache blocks that fit: (memory × utilization − weights − reserve) / block bytes, the reserve
  // being what vLLM's profiling keeps besides the weights (sim/activation_reserve.hpp). Zero or
  // negative memory left yields 0 (the caller reports that the model does not fit).
  std::int64_t num_gpu_blocks(int block_size, double gpu_memory_utilization, double reserve_bytes) const;

  double weight_bytes_per_gpu() const { return weight_bytes_; }           // resident: every parameter
  double streamed_bytes_per_gpu() const { return streamed_bytes_; }      // read by each step
  double linear_flops_per_token() const { return linear_flops_per_token_; }  // per GPU, the lm_head aside
  double lm_head_flops_per_row() const { return lm_head_flops_per_row_; }    // per GPU, per sampled row
  double kv_bytes_per_token_per_gpu() const { return kv_bytes_per_token_; }
  double kv_bytes_per_token_per_layer() const { return kv_bytes_per_token_ / setup_.model.num_layers; }
  double effective_flops() const { return flops_; }          // per GPU, FLOP/s
  double effective_bandwidth() const { return bandwidth_; }  // per GPU, B/s, after the TP falloff
  double effective_link_bandwidth() const { return link_bandwidth_; }  // per GPU, B/s
  double attention_flops_per_pair() const { return attn_flops_per_pair_; }
  const HardwareSetup& setup() const { return setup_; }

 private:
  HardwareSetup setup_;
  double weight_bytes_ = 0;
  double streamed_bytes_ = 0;
  double lm_head_flops_per_row_ = 0;
  double kv_bytes_per_token_ = 0;
  double linear_flops_per_token_ = 0;
  double attn_flops_per_pair_ = 0;
  double allreduce_bytes_per_token_ = 0;
  double flops_ = 0;
  double bandwidth_ = 0;
  double link_bandwidth_ = 0;
};

// (aⁿ + bⁿ)^(1/n) for a, b ≥ 0 and n ≥ 1, computed without overflow; n = ∞ gives max(a, b).
double smooth_max(double a, double b, double n);

}  // namespace sb::sim
