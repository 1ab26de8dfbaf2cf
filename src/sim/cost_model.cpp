#include "sim/cost_model.hpp"

#include <algorithm>
#include <cmath>

namespace sb::sim {

double smooth_max(double a, double b, double n) {
  const double hi = std::max(a, b);
  const double lo = std::min(a, b);
  if (hi <= 0) return 0.0;
  if (!std::isfinite(n)) return hi;
  // hi·(1 + (lo/hi)ⁿ)^(1/n): the ratio is at most 1, so nothing overflows for any n.
  return hi * std::pow(1.0 + std::pow(lo / hi, n), 1.0 / n);
}

CostModel::CostModel(const HardwareSetup& setup) : setup_(setup) {
  const ModelPreset& m = setup_.model;
  const CostParams& k = setup_.cost;
  const double tp = std::max(1, setup_.tensor_parallel);
  weight_bytes_ = m.params * m.dtype_bytes / tp;
  // The embedding table is a lookup: a step reads the rows of its tokens, not the table, and does no
  // math with it. The lm_head (the same matrix when tied) is a product, but vLLM runs it for the
  // rows it samples from only (the last token of each sequence that emits one), not every token.
  // Both are split over the TP ranks (vocabulary-parallel).
  const double table = static_cast<double>(m.vocab_size) * m.hidden_size;
  const double body = std::max(0.0, m.params - table * (m.tied_embeddings ? 1 : 2));
  streamed_bytes_ = (body + table) * m.dtype_bytes / tp;
  lm_head_flops_per_row_ = 2.0 * table / tp;
  // KV heads are split across TP ranks; with more ranks than KV heads they are replicated.
  const double kv_heads_per_gpu = std::max(1.0, m.num_kv_heads / tp);
  kv_bytes_per_token_ = 2.0 * m.num_layers * kv_heads_per_gpu * m.head_dim * m.dtype_bytes;
  linear_flops_per_token_ = 2.0 * body / tp;
  // QK^T and PV: two multiply-adds (4 FLOPs) per head dimension per (query, key) pair per layer.
  attn_flops_per_pair_ = 4.0 * m.num_layers * m.num_heads * m.head_dim / tp;
  // Two all-reduces per layer (after attention and after the MLP) over the hidden state; a ring
  // moves 2·(tp−1)/tp of the payload through each GPU's link.
  allreduce_bytes_per_token_ = tp > 1 ? 2.0 * m.num_layers * m.hidden_size * m.dtype_bytes * 2.0 * (tp - 1) / tp : 0.0;
  flops_ = setup_.gpu.peak_tflops * 1e12 * k.compute_efficiency;
  // A shard of 1/TP of each weight matrix is a smaller, less efficient stream (more kernels per
  // byte, shorter rows); published TP4/TP8 decode times put the loss at 10-15 % per extra rank.
  bandwidth_ = setup_.gpu.mem_bandwidth_gbs * 1e9 * k.bandwidth_efficiency / (1.0 + k.tp_bandwidth_falloff * (tp - 1));
  link_bandwidth_ = setup_.gpu.link_bandwidth_gbs * 1e9 * k.link_efficiency;
}

StepCost CostModel::step_cost(const StepShape& shape) const {
  const CostParams& k = setup_.cost;
  StepCost cost;
  cost.overhead_s = (k.step_overhead_us + k.seq_overhead_us * static_cast<double>(shape.num_seqs)) * 1e-6;
  const double tokens = static_cast<double>(shape.new_tokens());
  if (tokens <= 0) return cost;
  const double flops = linear_flops_per_token_ * tokens +
                       lm_head_flops_per_row_ * static_cast<double>(shape.sampled_tokens) +
                       attn_flops_per_pair_ * shape.attention_pairs;
  cost.compute_s = flops / flops_;
  const double bytes = streamed_bytes_ + kv_bytes_per_token_ * static_cast<double>(shape.kv_tokens_read) +
                       kv_bytes_per_token_ * tokens;  // new KV entries written
  cost.memory_s = bytes / bandwidth_;
  cost.device_s = smooth_max(cost.compute_s, cost.memory_s, k.roofline_sharpness);
  if (allreduce_bytes_per_token_ > 0 && link_bandwidth_ > 0) {
    const double num_allreduces = 2.0 * setup_.model.num_layers;
    cost.comm_s = allreduce_bytes_per_token_ * tokens / link_bandwidth_ + num_allreduces * k.allreduce_latency_us * 1e-6;
  }
  return cost;
}

std::int64_t CostModel::num_gpu_blocks(int block_size, double gpu_memory_utilization, double reserve_bytes) const {
  const double gib = 1024.0 * 1024.0 * 1024.0;
  const double budget = setup_.gpu.mem_gib * gib * gpu_memory_utilization - weight_bytes_ - reserve_bytes;
  if (budget <= 0 || block_size <= 0) return 0;
  return static_cast<std::int64_t>(std::floor(budget / (kv_bytes_per_token_ * block_size)));
}

}  // namespace sb::sim
