#include "trace/categories.hpp"

#include <gtest/gtest.h>
#include <set>

#include "fixtures.hpp"
#include "trace/nsys.hpp"
#include "trace/rocprof_v1.hpp"
#include "trace/rocprofv3.hpp"
#include "trace/torch_trace.hpp"

namespace sb::trace {
namespace {

using trace_fixtures::fixture_text;

TEST(KernelNames, NormalizeStripsRocprofSuffixes) {
  EXPECT_EQ(normalize_kernel_name("void f<int>(int*) [clone .kd]"), "void f<int>(int*)");
  EXPECT_EQ(normalize_kernel_name("Cijk_Alik_Bljk_MT16x64.kd"), "Cijk_Alik_Bljk_MT16x64");
  EXPECT_EQ(normalize_kernel_name("  nvjet_tst_64x8 "), "nvjet_tst_64x8");
}

TEST(KernelNames, BaseNameIsTheSameInEveryToolsSpelling) {
  // rocprof v1 (cxxabi + .kd), nsys demangler, Kineto: all -> one join key.
  const char* const rms[] = {
      "void vllm::rms_norm_kernel<c10::BFloat16, 8, 2>(c10::BFloat16*, c10::BFloat16 const*, long, long, "
      "c10::BFloat16 const*, float, int, int) [clone .kd]",
      "void vllm::rms_norm_kernel<c10::BFloat16, (int)8, (int)2>(T1 *, const T1 *, long, long, const T1 *, float, int, "
      "int)"};
  for (const char* n : rms) EXPECT_EQ(kernel_base_name(n), "vllm::rms_norm_kernel") << n;
  const char* const softmax[] = {
      "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, "
      "at::native::(anonymous namespace)::SoftMaxForwardEpilogue>(float*, float const*, int)",
      "void at::native::<unnamed>::cunn_SoftMaxForward<(int)4, float, float, float, "
      "at::native::<unnamed>::SoftMaxForwardEpilogue>(T4 *, const T2 *, int)"};
  for (const char* n : softmax) EXPECT_EQ(kernel_base_name(n), "at::native::cunn_SoftMaxForward") << n;
  EXPECT_EQ(kernel_base_name("std::enable_if<(8>0)&&vllm::_typeConvert<c10::BFloat16>::exists, void>::type "
                             "vllm::fused_add_rms_norm_kernel<c10::BFloat16, 8>(c10::BFloat16*, long) [clone .kd]"),
            "vllm::fused_add_rms_norm_kernel");
  EXPECT_EQ(kernel_base_name("std::enable_if<T2>(int)0&&vllm::_typeConvert<T1>::exists, void>::type "
                             "vllm::fused_add_rms_norm_kernel<c10::BFloat16, (int)8>(T1 *, long, T1 *)"),
            "vllm::fused_add_rms_norm_kernel");
  EXPECT_EQ(kernel_base_name("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<int>, "
                             "std::array<char*, 1ul> >(int, at::native::FillFunctor<int>, std::array<char*, 1ul>)"),
            "at::native::vectorized_elementwise_kernel");
  EXPECT_EQ(kernel_base_name("ncclDevKernel_Generic_4(ncclDevKernelArgsStorage<4096ul>)"), "ncclDevKernel_Generic_4");
  EXPECT_EQ(kernel_base_name("nvjet_tst_64x8_64x16_4x1_v_bz_TNT"), "nvjet_tst_64x8_64x16_4x1_v_bz_TNT");
  EXPECT_EQ(kernel_base_name("__amd_rocclr_copyBuffer.kd"), "__amd_rocclr_copyBuffer");
  EXPECT_EQ(kernel_base_name("[CUDA memcpy Host-to-Device]"), "[CUDA memcpy Host-to-Device]");
}

TEST(KernelCategories, FollowTheOrderedRules) {
  const std::pair<const char*, KernelCategory> cases[] = {
      {"[CUDA memset]", KernelCategory::memcpy},
      {"Memcpy HtoD (Pinned -> Device)", KernelCategory::memcpy},
      {"CopyDeviceToHost", KernelCategory::memcpy},
      {"MEMORY_COPY_HOST_TO_DEVICE", KernelCategory::memcpy},
      {"__amd_rocclr_fillBufferAligned.kd", KernelCategory::memcpy},
      {"ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)", KernelCategory::communication},
      {"void vllm::cross_device_reduce_1stage<__hip_bfloat16, 2>(vllm::RankData*) [clone .kd]",
       KernelCategory::communication},
      // contains "flash": the KV-cache rule must win over attention
      {"void vllm::reshape_and_cache_flash_kernel<__nv_bfloat16>(const T1 *)", KernelCategory::kv_cache_write},
      {"void vllm::concat_and_cache_mla_kernel<__nv_bfloat16>(const T1 *)", KernelCategory::kv_cache_write},
      {"void paged_attention_ll4mi_QKV_mfma16_kernel<__hip_bfloat16>(int) [clone .kd]", KernelCategory::attention},
      {"kernel_unified_attention_2d", KernelCategory::attention},
      {"void cutlass::device_kernel<flash::enable_sm90_or_later<flash::FlashAttnFwdSm90<int>>>(T1::Params)",
       KernelCategory::attention},
      {"Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT16x64x256_MI16x16x1.kd", KernelCategory::gemm},
      {"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize64x64x64_cublas", KernelCategory::gemm},
      {"void wvSplitK_hf_sml_<__hip_bfloat16, 64>(int) [clone .kd]", KernelCategory::gemm},
      {"void vllm::moe::topkGatingSoftmax<float>(float*)", KernelCategory::other},
      {"void vllm::act_and_mul_kernel<c10::BFloat16, &vllm::silu_kernel<c10::BFloat16>, (bool)1>(T1 *)",
       KernelCategory::norm_activation},
      {"void vllm::rotary_embedding_kernel<c10::BFloat16, true>(long const*)", KernelCategory::norm_activation},
      {"void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::ArgMaxOps<float>>>(int)",
       KernelCategory::sampling},
      {"_compute_slot_mapping_kernel", KernelCategory::other},
  };
  for (const auto& [name, expected] : cases) {
    EXPECT_EQ(category_name(categorize_kernel_name(name)), category_name(expected)) << name;
  }
}

TEST(KernelCategories, CopiesAreMemcpyByRecordTypeWhateverTheName) {
  KernelEvent e{.name = "Memcpy 1 (0x7f00 -> 0x7f80)", .kind = OpKind::memcpy};
  EXPECT_EQ(categorize(e), KernelCategory::memcpy);
  e.name = "nvjet_tst";
  e.kind = OpKind::kernel;
  EXPECT_EQ(categorize(e), KernelCategory::gemm);
}

// Every kernel in the authored fixtures lands in a named category; only the helper kernels are "other".
TEST(KernelCategories, EveryFixtureKernelIsCategorised) {
  SB_REQUIRE_SHARED_FIXTURES();
  std::vector<KernelEvent> all;
  for (auto t : {parse_rocprof_v1_csv(fixture_text(std::string(trace_fixtures::kV1Dir) + "results.csv"), "v1"),
                 parse_rocprofv3_kernel_trace(fixture_text(std::string(trace_fixtures::kV3Dir) + "48213_kernel_trace.csv"), "v3"),
                 parse_nsys_gpu_trace(fixture_text(std::string(trace_fixtures::kNsysDir) + "vllm_cuda_gpu_trace.csv"), "ns"),
                 parse_torch_trace(fixture_text(trace_fixtures::kTorchFile), "torch")}) {
    all.insert(all.end(), t.events.begin(), t.events.end());
  }
  std::set<std::string> other;
  for (const KernelEvent& e : all) {
    if (categorize(e) == KernelCategory::other) other.insert(kernel_base_name(e.name));
  }
  EXPECT_EQ(other, (std::set<std::string>{"_compute_slot_mapping_kernel", "at::native::vectorized_elementwise_kernel"}));
}

// The project's decode-step samples name one kernel per category in every tool's spelling; only the
// slot-mapping and fill helpers are "other".
TEST(KernelCategories, EveryOwnSampleKernelIsCategorised) {
  const KernelTrace traces[] = {
      parse_rocprof_v1_csv(trace_fixtures::own_text(trace_fixtures::kOwnV1Dir, "results.csv"), "v1"),
      parse_rocprofv3_kernel_trace(trace_fixtures::own_text(trace_fixtures::kOwnV3Dir, "7301_kernel_trace.csv"), "v3"),
      parse_nsys_gpu_trace(trace_fixtures::own_text(trace_fixtures::kOwnNsysDir, "sbtest_cuda_gpu_trace.csv"), "ns"),
      parse_torch_trace(trace_fixtures::authored_text(trace_fixtures::kOwnTorchFile), "torch")};
  const std::set<KernelCategory> every(kAllCategories.begin(), kAllCategories.end());
  std::set<std::string> other;
  for (const KernelTrace& t : traces) {
    std::set<KernelCategory> seen;
    for (const KernelEvent& e : t.events) {
      seen.insert(categorize(e));
      if (categorize(e) == KernelCategory::other) other.insert(kernel_base_name(e.name));
    }
    EXPECT_EQ(seen, every) << t.files[0];
  }
  EXPECT_EQ(other, (std::set<std::string>{"_sbtest_slot_mapping_kernel", "sbtest::fill_kernel"}));
  EXPECT_EQ(categorize_kernel_name("void sbtest::reshape_and_cache_flash_kernel<__nv_bfloat16, (int)0>(const T1 *)"),
            KernelCategory::kv_cache_write);
}

}  // namespace
}  // namespace sb::trace
