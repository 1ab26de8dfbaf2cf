#include "sim/activation_reserve.hpp"

namespace sb::sim {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// Activations are 16-bit (bf16/fp16) even for FP8 checkpoints, which quantise weights, not the
// hidden states or logits.
constexpr double kActivationBytes = 2;

// Bytes per (row × vocabulary entry) at the peak of the dummy sampler run. The PyTorch-native
// top-k/top-p path (vllm/v1/sample/ops/topk_topp_sampler.py, the default unless FlashInfer's
// sampler is switched on) keeps the 16-bit logits, their float32 copy, a sorted float32 copy with
// int64 indices and the sort's scratch, then the softmax, masks and scattered result: about 38
// bytes an entry. Measured: vLLM logs a torch peak of 5.56 GiB for Qwen3-0.6B on an H100 at
// 8192 tokens and 1024 sequences (llm-d/llm-d-benchmark config_explorer/
// empirical-vllm-memory-results.md); less its 8192 × 1024 × 2 B of hidden states, that is 38.3 B
// for each of its 1024 × 151,936 logits. The model is so small that nothing else competes.
constexpr double kSamplerBytesPerLogit = 38.3;

// Device memory that grows outside torch during the profiling run, same source: 0.13-0.14 GiB with
// one GPU (cuBLAS/cuBLASLt workspaces, kernels loaded), 0.55 GiB at TP 2 (NCCL and the custom
// all-reduce's buffers).
constexpr double kNonTorchOneGpuGiB = 0.13;
constexpr double kNonTorchTensorParallelGiB = 0.55;

}  // namespace

ActivationReserve derive_activation_reserve(const ModelPreset& model, const ProfileRunShape& shape) {
  const double tokens = static_cast<double>(std::max<std::int64_t>(1, shape.max_num_batched_tokens));
  const double tp = std::max(1, shape.tensor_parallel);
  // vLLM spreads the dummy tokens over min(tokens, max_num_seqs) requests and samples one row each.
  const double rows = std::min(tokens, static_cast<double>(std::max(1, shape.max_num_seqs)));
  ActivationReserve r;
  // Widest point of a layer: the residual and the normed input ([tokens, hidden] each), the fused
  // gate/up projection's output [tokens, 2·intermediate/TP] and the SiLU·mul result
  // [tokens, intermediate/TP] are alive together.
  r.forward_bytes = tokens * kActivationBytes * (2.0 * model.hidden_size + 3.0 * model.intermediate_size / tp);
  // The forward's output [tokens, hidden] is still referenced while the sampler runs. Logits are
  // gathered to the full vocabulary on every rank (each V1 worker samples), so TP does not split them.
  r.sampler_bytes =
      tokens * kActivationBytes * model.hidden_size + rows * static_cast<double>(model.vocab_size) * kSamplerBytesPerLogit;
  r.non_torch_bytes = (tp > 1 ? kNonTorchTensorParallelGiB : kNonTorchOneGpuGiB) * kGiB;
  return r;
}

}  // namespace sb::sim
