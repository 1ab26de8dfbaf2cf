#pragma once
// Time of one engine step on the simulated GPU(s): a roofline per step,
//   step = max(compute, memory) + tensor-parallel all-reduce + fixed per-step overhead,
// with compute = FLOPs of the batch (weights: 2·params per token; attention: 4·layers·heads·head_dim
// per (query token, context token) pair) over the effective peak, which grows with the tokens T in
// the step as T / (T + gemm_half_tokens) because small GEMMs leave tensor cores idle, and memory = bytes of weights
// plus KV cache read and written over the effective bandwidth. All per GPU (TP splits both).
// Formulas and limits are documented in docs/simulator.md.
#include <cstdint>

#include "core/clock.hpp"
#include "sim/presets.hpp"

namespace sb::sim {

struct CostParams {
  double compute_efficiency = 0.5;    // achieved fraction of peak tensor FLOPs (MFU) on large steps
  double gemm_half_tokens = 128;      // tokens per step at which GEMMs reach half that efficiency
  double bandwidth_efficiency = 0.8;  // achieved fraction of peak memory bandwidth
  double step_overhead_us = 1500;     // scheduler, input prep, launches, host sampling per step
  double allreduce_latency_us = 8;    // fixed cost of one all-reduce (TP > 1 only)
  double activation_reserve_gib = 2;  // activations/workspace vLLM's memory profiling reserves
};

struct HardwareSetup {
  ModelPreset model;
  GpuPreset gpu;
  CostParams cost;
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
  double compute_s = 0;
  double memory_s = 0;
  double comm_s = 0;
  double overhead_s = 0;

  double busy_s() const { return (compute_s > memory_s ? compute_s : memory_s) + comm_s; }
  double total_s() const { return busy_s() + overhead_s; }
  Nanos total_ns() const { return static_cast<Nanos>(total_s() * 1e9 + 0.5); }
};

class CostModel {
 public:
  explicit CostModel(const HardwareSetup& setup);

  StepCost step_cost(const StepShape& shape) const;

  // KV-cache blocks that fit: (memory × utilization − weights − activation reserve) / block bytes.
  // Zero or negative memory left yields 0 (the caller reports that the model does not fit).
  std::int64_t num_gpu_blocks(int block_size, double gpu_memory_utilization) const;

  double weight_bytes_per_gpu() const { return weight_bytes_; }
  double kv_bytes_per_token_per_gpu() const { return kv_bytes_per_token_; }
  double kv_bytes_per_token_per_layer() const { return kv_bytes_per_token_ / setup_.model.num_layers; }
  double effective_flops() const { return flops_; }          // per GPU, FLOP/s
  double effective_bandwidth() const { return bandwidth_; }  // per GPU, B/s
  double attention_flops_per_pair() const { return attn_flops_per_pair_; }
  const HardwareSetup& setup() const { return setup_; }

 private:
  HardwareSetup setup_;
  double weight_bytes_ = 0;
  double kv_bytes_per_token_ = 0;
  double linear_flops_per_token_ = 0;
  double attn_flops_per_pair_ = 0;
  double allreduce_bytes_per_token_ = 0;
  double flops_ = 0;
  double bandwidth_ = 0;
  double link_bandwidth_ = 0;
};

}  // namespace sb::sim
