// Splits one step's cost into the kernels of a vLLM forward pass (see kernel_trace.hpp).
#include <algorithm>
#include <cmath>

#include "sim/kernel_trace.hpp"

namespace sb::sim {
namespace {

// Kernel names as vLLM's CUDA and ROCm builds report them (docs/trace.md).
struct KernelName {
  std::string_view nvidia;
  std::string_view amd;
};

constexpr KernelName kH2d{"[CUDA memcpy Host-to-Device]", "__amd_rocclr_copyBuffer"};
constexpr KernelName kRmsNorm{
    "void vllm::rms_norm_kernel<c10::BFloat16>(c10::BFloat16*, c10::BFloat16 const*, c10::BFloat16 const*, float, int, int)",
    "void vllm::rms_norm_kernel<c10::BFloat16>(c10::BFloat16*, c10::BFloat16 const*, c10::BFloat16 const*, float, int, int)"};
constexpr KernelName kGemm{"nvjet_tst_128x256_64x4_2x1_v_bz_coopA_TNT",
                           "Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT128x128x64_MI16x16x1_SN_ISA942"};
constexpr KernelName kRotary{
    "void vllm::rotary_embedding_kernel<c10::BFloat16, true>(long const*, c10::BFloat16*, c10::BFloat16*, c10::BFloat16 const*, int, long, long, int, int, int)",
    "void vllm::rotary_embedding_kernel<c10::BFloat16, true>(long const*, c10::BFloat16*, c10::BFloat16*, c10::BFloat16 const*, int, long, long, int, int, int)"};
constexpr KernelName kKvWrite{
    "void vllm::reshape_and_cache_flash_kernel<__nv_bfloat16, __nv_bfloat16, (vllm::Fp8KVCacheDataType)0>(__nv_bfloat16 const*, __nv_bfloat16 const*, __nv_bfloat16*, __nv_bfloat16*, long const*, long, long, long, long, int, int, int, float const*, float const*)",
    "void vllm::reshape_and_cache_flash_kernel<__hip_bfloat16, __hip_bfloat16, (vllm::Fp8KVCacheDataType)0>(__hip_bfloat16 const*, __hip_bfloat16 const*, __hip_bfloat16*, __hip_bfloat16*, long const*, long, long, long, long, int, int, int, float const*, float const*)"};
constexpr KernelName kAttention{
    "void flash::flash_fwd_splitkv_kernel<Flash_fwd_kernel_traits<128, 64, 128, 4, false, false, cutlass::bfloat16_t, Flash_kernel_traits<128, 64, 128, 4, cutlass::bfloat16_t> >, false, true, false, false, true, true, false, false>(flash::Flash_fwd_params)",
    "kernel_unified_attention_2d"};
constexpr KernelName kAllReduce{"void vllm::cross_device_reduce_1stage<__nv_bfloat16, 2>(vllm::RankData*, vllm::RankSignals, vllm::Signal*, __nv_bfloat16*, int, int)",
                                "void vllm::cross_device_reduce_1stage<__hip_bfloat16, 2>(vllm::RankData*, vllm::RankSignals, vllm::Signal*, __hip_bfloat16*, int, int)"};
constexpr KernelName kFusedAddNorm{
    "std::enable_if<(8>0)&&vllm::_typeConvert<c10::BFloat16>::exists, void>::type vllm::fused_add_rms_norm_kernel<c10::BFloat16, 8>(c10::BFloat16*, c10::BFloat16*, c10::BFloat16 const*, float, int, int)",
    "std::enable_if<(8>0)&&vllm::_typeConvert<c10::BFloat16>::exists, void>::type vllm::fused_add_rms_norm_kernel<c10::BFloat16, 8>(c10::BFloat16*, c10::BFloat16*, c10::BFloat16 const*, float, int, int)"};
constexpr KernelName kSiluMul{
    "void vllm::act_and_mul_kernel<c10::BFloat16, &vllm::silu_kernel<c10::BFloat16>, true>(c10::BFloat16*, c10::BFloat16 const*, int)",
    "void vllm::act_and_mul_kernel<c10::BFloat16, &vllm::silu_kernel<c10::BFloat16>, true>(c10::BFloat16*, c10::BFloat16 const*, int)"};
constexpr KernelName kSoftmax{
    "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, at::native::(anonymous namespace)::SoftMaxForwardEpilogue>(float*, float const*, int)",
    "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, at::native::(anonymous namespace)::SoftMaxForwardEpilogue>(float*, float const*, int)"};
constexpr KernelName kArgmax{
    "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::ArgMaxOps<float>, unsigned int, long, 4> >(at::native::ReduceOp<float, at::native::ArgMaxOps<float>, unsigned int, long, 4>)",
    "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::ArgMaxOps<float>, unsigned int, long, 4> >(at::native::ReduceOp<float, at::native::ArgMaxOps<float>, unsigned int, long, 4>)"};

// Below this a kernel is launch-bound; keeps tiny kernels visible in the trace.
constexpr double kMinKernelS = 1.5e-6;

struct Planned {
  const KernelName* name;
  double ideal_s;
  bool copy;
};

class Planner {
 public:
  Planner(const CostModel& model, const StepShape& shape) : m_(model), shape_(shape) {
    const auto& setup = model.setup();
    tp_ = std::max(1, setup.tensor_parallel);
    dtype_ = setup.model.dtype_bytes;
  }

  double gemm(double rows, double k_in, double k_out) const {
    const double flops = 2.0 * rows * k_in * k_out / tp_;
    const double bytes = k_in * k_out * dtype_ / tp_;
    return std::max({flops / m_.effective_flops(), bytes / m_.effective_bandwidth(), kMinKernelS});
  }
  double stream(double bytes) const { return std::max(bytes / m_.effective_bandwidth(), kMinKernelS); }
  double attention() const {
    const double layers = m_.setup().model.num_layers;
    const double flops = m_.attention_flops_per_pair() * shape_.attention_pairs / layers;
    const double bytes = m_.kv_bytes_per_token_per_layer() * static_cast<double>(shape_.kv_tokens_read);
    return std::max({flops / m_.effective_flops(), bytes / m_.effective_bandwidth(), kMinKernelS});
  }
  double allreduce(double tokens) const {
    const auto& s = m_.setup();
    const double bytes = tokens * s.model.hidden_size * dtype_ * 2.0 * (tp_ - 1) / tp_;
    return bytes / (s.gpu.link_bandwidth_gbs * 1e9) + s.cost.allreduce_latency_us * 1e-6;
  }
  void layer(std::vector<Planned>& out) const;
  void head(std::vector<Planned>& out) const;

 private:
  const CostModel& m_;
  const StepShape& shape_;
  int tp_ = 1;
  double dtype_ = 2;
};

void Planner::layer(std::vector<Planned>& out) const {
  const auto& md = m_.setup().model;
  const double t = static_cast<double>(shape_.new_tokens());
  const double hidden = md.hidden_size;
  const double q_dim = static_cast<double>(md.num_heads) * md.head_dim;
  const double kv_dim = static_cast<double>(md.num_kv_heads) * md.head_dim;
  const double act_bytes = t * hidden * dtype_;
  out.push_back({&kRmsNorm, stream(2 * act_bytes), false});
  out.push_back({&kGemm, gemm(t, hidden, q_dim + 2 * kv_dim), false});
  out.push_back({&kRotary, stream(t * (q_dim + kv_dim) * dtype_ * 2 / tp_), false});
  out.push_back({&kKvWrite, stream(m_.kv_bytes_per_token_per_layer() * t), false});
  out.push_back({&kAttention, attention(), false});
  out.push_back({&kGemm, gemm(t, q_dim, hidden), false});
  if (tp_ > 1) out.push_back({&kAllReduce, allreduce(t), false});
  out.push_back({&kFusedAddNorm, stream(3 * act_bytes), false});
  out.push_back({&kGemm, gemm(t, hidden, 2.0 * md.intermediate_size), false});
  out.push_back({&kSiluMul, stream(3 * t * md.intermediate_size * dtype_ / tp_), false});
  out.push_back({&kGemm, gemm(t, md.intermediate_size, hidden), false});
  if (tp_ > 1) out.push_back({&kAllReduce, allreduce(t), false});
}

void Planner::head(std::vector<Planned>& out) const {
  const auto& md = m_.setup().model;
  const double rows = static_cast<double>(std::max<std::int64_t>(shape_.sampled_tokens, 1));
  out.push_back({&kRmsNorm, stream(2 * rows * md.hidden_size * dtype_), false});
  out.push_back({&kGemm, gemm(rows, md.hidden_size, md.vocab_size), false});
  out.push_back({&kSoftmax, stream(2 * rows * md.vocab_size * 4), false});
  out.push_back({&kArgmax, stream(rows * md.vocab_size * 4), false});
}

}  // namespace

void plan_step_kernels(const CostModel& model, const StepShape& shape, const StepCost& cost,
                       const StepTiming& timing, std::vector<KernelEvent>& out) {
  if (shape.new_tokens() <= 0) return;
  const Planner planner(model, shape);
  std::vector<Planned> kernels;
  kernels.reserve(static_cast<std::size_t>(model.setup().model.num_layers) * 12 + 8);
  // Input ids, positions and slot mapping: ~16 bytes per token over PCIe.
  kernels.push_back({&kH2d, std::max(static_cast<double>(shape.new_tokens()) * 16 / 25e9, kMinKernelS), true});
  for (int l = 0; l < model.setup().model.num_layers; ++l) planner.layer(kernels);
  planner.head(kernels);

  double ideal_total = 0;
  for (const Planned& k : kernels) ideal_total += k.ideal_s;
  // Device-busy span of the step in the engine's (scaled) time; the host overhead comes first.
  const double span_ns = std::max(1.0, cost.busy_s() * 1e9 / timing.time_scale);
  const double begin_ns = std::max(static_cast<double>(timing.start_ns),
                                   static_cast<double>(timing.end_ns) - span_ns);
  const double ns_per_ideal_s = (static_cast<double>(timing.end_ns) - begin_ns) / ideal_total;
  const bool amd = model.setup().gpu.amd;
  double at = begin_ns;
  for (const Planned& k : kernels) {
    const double next = at + k.ideal_s * ns_per_ideal_s;
    // Rounding the running boundary (not each duration) keeps the sum exact.
    out.push_back({amd ? k.name->amd : k.name->nvidia, static_cast<Nanos>(std::llround(at)),
                   static_cast<Nanos>(std::llround(next)), k.copy});
    at = next;
  }
  out.back().end_ns = timing.end_ns;
}

}  // namespace sb::sim
