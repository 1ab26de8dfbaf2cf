#pragma once
// The GPU memory vLLM keeps out of the KV cache besides the weights, derived the way vLLM finds it
// at start-up (V1 Worker.determine_available_memory → GPUModelRunner.profile_run, vLLM 0.8-0.16):
// one dummy forward of max_num_batched_tokens tokens, then one dummy sampler run over the last
// token of min(max_num_seqs, tokens) dummy requests with top-k and top-p on. The torch peak of that
// run, plus what grew outside torch's allocator meanwhile, is subtracted from
// gpu_memory_utilization × total; what is left is KV cache. CUDA graphs are captured after the KV
// cache is allocated, from the memory the utilization leaves out, so they are not part of it.
// Sources, and the comparison with the numbers vLLM logs: docs/simulator.md §3.
#include <algorithm>
#include <cstdint>

#include "sim/presets.hpp"

namespace sb::sim {

// What vLLM sizes its profiling run by.
struct ProfileRunShape {
  std::int64_t max_num_batched_tokens = 8192;
  int max_num_seqs = 256;
  int tensor_parallel = 1;
};

struct ActivationReserve {
  double forward_bytes = 0;    // the dummy forward's activations at its widest point (the MLP)
  double sampler_bytes = 0;    // the forward's output, held, plus the sampler's logits and sort
  double non_torch_bytes = 0;  // grown outside torch's allocator: cuBLAS workspaces, NCCL buffers

  // The two phases follow each other, so torch's peak is the larger of them.
  double total_bytes() const { return std::max(forward_bytes, sampler_bytes) + non_torch_bytes; }
};

ActivationReserve derive_activation_reserve(const ModelPreset& model, const ProfileRunShape& shape);

}  // namespace sb::sim
