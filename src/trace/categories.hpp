#pragma once
// Kernel name normalisation for cross-tool joins (docs/trace.md) and the category of each GPU
// operation. The same kernel is spelled differently by rocprof (".kd" suffixes), the nsys
// demangler ("(int)4", "const T1 *", "<unnamed>") and cxxabi/Kineto ("4", "long const*",
// "(anonymous namespace)"); the base name (qualified identifier, no return type, template or
// parameter list) is the same in all of them.
#include <array>
#include <string>
#include <string_view>

#include "trace/kernel_event.hpp"

namespace sb::trace {

enum class KernelCategory {
  memcpy,           // copies and memsets, including ROCm blit kernels (__amd_rocclr_copyBuffer…)
  communication,    // NCCL/RCCL, vLLM custom all-reduce
  kv_cache_write,   // reshape_and_cache…
  attention,        // paged/flash/unified attention
  gemm,             // cuBLAS/hipBLASLt/Tensile/CUTLASS/Marlin…
  norm_activation,  // RMSNorm, SiLU-and-mul, rotary (pointwise)
  sampling,         // softmax, argmax, top-k/p
  other,            // everything else, including MoE routing
};

inline constexpr std::array kAllCategories{
    KernelCategory::memcpy,    KernelCategory::communication,   KernelCategory::kv_cache_write,
    KernelCategory::attention, KernelCategory::gemm,            KernelCategory::norm_activation,
    KernelCategory::sampling,  KernelCategory::other};

std::string_view category_name(KernelCategory c);  // "memcpy", "communication", "kv_cache_write", …

// Full name without rocprof v1's " [clone .kd]" / ".kd" suffix (and surrounding blanks).
std::string normalize_kernel_name(std::string_view name);

// Join key: "void vllm::rms_norm_kernel<c10::BFloat16, (int)8>(T1 *, …) [clone .kd]" ->
// "vllm::rms_norm_kernel". Names without a parsable identifier (e.g. "[CUDA memset]") come back
// normalised but otherwise whole.
std::string kernel_base_name(std::string_view name);

// The regexes of docs/trace.md ("Names and categories"), in order, first match wins, on the normalised name.
KernelCategory categorize_kernel_name(std::string_view name);

// Copies and memsets are memcpy by record type, whatever their name.
KernelCategory categorize(const KernelEvent& event);

}  // namespace sb::trace
