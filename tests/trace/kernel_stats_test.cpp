#include "trace/kernel_stats.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "fixtures.hpp"

namespace sb::trace {
namespace {

using trace_fixtures::fixture_text;

KernelStats stats_of(std::string_view dir, std::string_view file) {
  return parse_kernel_stats(fixture_text(std::string(dir) + std::string(file)), file);
}

TEST(KernelStats, RocprofV1RealFilesIncludingScientificPercentages) {
  SB_REQUIRE_SHARED_FIXTURES();
  const KernelStats hip = stats_of(trace_fixtures::kV1Real, "results.hip_stats.csv");
  EXPECT_EQ(hip.source_format, "rocprof");
  ASSERT_EQ(hip.rows.size(), 7u);
  EXPECT_EQ(hip.rows[0].name, "hipMemcpy");
  EXPECT_EQ(hip.rows[0].calls, 3);
  EXPECT_EQ(hip.rows[0].total_ns, 1342822760);
  EXPECT_EQ(hip.rows[0].avg_ns, 447607586);
  EXPECT_EQ(hip.rows[5].percent, 5.4773266536635426e-05);
  EXPECT_EQ(hip.rows[5].percent_text, "5.4773266536635426e-05");
  EXPECT_FALSE(hip.rows[0].min_ns);
  EXPECT_EQ(hip.rows[6].line, 8u);

  const KernelStats kernels = stats_of(trace_fixtures::kV1Real, "results.stats.csv");
  ASSERT_EQ(kernels.rows.size(), 1u);
  EXPECT_EQ(kernels.rows[0].name, "vector_add(float*, float*, float*, int)");  // HIP-ops name: no [clone .kd]
  EXPECT_EQ(kernels.rows[0].percent_text, "100.0");
}

TEST(KernelStats, RocprofV1UnquotedNamesOfOlderReleases) {
  const KernelStats s = parse_kernel_stats(
      "Name,Calls,TotalDurationNs,AverageNs,Percentage\nhsa_signal_wait_scacquire,1220,5000,4,100.0\n", "old.csv");
  ASSERT_EQ(s.rows.size(), 1u);
  EXPECT_EQ(s.rows[0].name, "hsa_signal_wait_scacquire");
  EXPECT_EQ(s.rows[0].calls, 1220);
}

TEST(KernelStats, Rocprofv3WithMinMaxAndStdDev) {
  SB_REQUIRE_SHARED_FIXTURES();
  const KernelStats real = stats_of(trace_fixtures::kV3Real, "hip_api_stats.csv");
  EXPECT_EQ(real.rows[0].name, "hipStreamCreateWithFlags");
  EXPECT_EQ(real.rows[0].avg_ns, 65624351.5);
  EXPECT_EQ(real.rows[0].min_ns, 3991286);
  EXPECT_EQ(real.rows[0].max_ns, 249121840);
  EXPECT_EQ(real.rows[0].stddev_text, "122332531.343496");
  EXPECT_EQ(real.rows[1].stddev_ns, 0.0);

  const KernelStats authored = stats_of(trace_fixtures::kV3Dir, "48213_kernel_stats.csv");
  ASSERT_EQ(authored.rows.size(), 19u);
  EXPECT_EQ(authored.rows[1].name,
            "void vllm::cross_device_reduce_1stage<__hip_bfloat16, 2>(vllm::RankData*, vllm::RankSignals, "
            "vllm::Signal*, __hip_bfloat16*, int, int)");
  EXPECT_EQ(authored.rows[1].percent_text, "15.04");
}

TEST(KernelStats, NsysSummaryFromCsvAndFromStdoutWithPreamble) {
  SB_REQUIRE_SHARED_FIXTURES();
  const KernelStats csv = stats_of(trace_fixtures::kNsysDir, "vllm_cuda_gpu_kern_sum.csv");
  const KernelStats out = stats_of(trace_fixtures::kNsysDir, "stdout_cuda_gpu_kern_sum.txt");
  EXPECT_EQ(csv.source_format, "nsys");
  ASSERT_EQ(csv.rows.size(), 16u);
  ASSERT_EQ(out.rows.size(), csv.rows.size());
  for (std::size_t i = 0; i < csv.rows.size(); ++i) {
    EXPECT_EQ(out.rows[i].name, csv.rows[i].name);
    EXPECT_EQ(out.rows[i].total_ns, csv.rows[i].total_ns);
    EXPECT_EQ(out.rows[i].line, csv.rows[i].line + 2);  // two progress lines before the header
  }
  EXPECT_EQ(csv.rows[0].name, "nvjet_tst_64x8_64x16_4x1_v_bz_TNT");
  EXPECT_EQ(csv.rows[0].calls, 4);
  EXPECT_EQ(csv.rows[0].total_ns, 42784);
  EXPECT_EQ(csv.rows[0].median_ns, 10688.0);
  EXPECT_EQ(csv.rows[0].stddev_text, "4633.8");
  EXPECT_EQ(csv.rows[0].percent, 19.1);

  const KernelStats mem = stats_of(trace_fixtures::kNsysDir, "vllm_cuda_gpu_mem_time_sum.csv");
  ASSERT_EQ(mem.rows.size(), 3u);
  EXPECT_EQ(mem.rows[2].name, "[CUDA memset]");
  EXPECT_EQ(mem.rows[0].calls, 3);  // "Count" column
}

TEST(KernelStats, MalformedAndForeignFilesAreUserErrors) {
  try {
    parse_kernel_stats("\"Name\",\"Calls\",\"TotalDurationNs\",\"AverageNs\",\"Percentage\"\n\"k\",x,1,1,1.0\n", "s.csv");
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(), "s.csv:2: column Calls: bad integer 'x'");
  }
}

TEST(KernelStats, TracesAreNoSummaries) {
  SB_REQUIRE_SHARED_FIXTURES();
  EXPECT_THROW(stats_of(trace_fixtures::kNsysDir, "vllm_cuda_gpu_trace.csv"), UserError);
  EXPECT_TRUE(has_kernel_stats_header(fixture_text(std::string(trace_fixtures::kNsysDir) + "stdout_cuda_gpu_kern_sum.txt")));
  EXPECT_FALSE(has_kernel_stats_header(fixture_text(std::string(trace_fixtures::kV1Dir) + "results.csv")));
}

// The project's own summaries (tests/data/trace/authored/README.md), each computed from the trace beside it.
KernelStats own_stats_of(std::string_view dir, std::string_view file) {
  return parse_kernel_stats(trace_fixtures::own_text(dir, file), file);
}

TEST(KernelStats, OwnRocprofV1FilesIncludingScientificPercentages) {
  const KernelStats hip = own_stats_of(trace_fixtures::kOwnV1Hip, "results.hip_stats.csv");
  EXPECT_EQ(hip.source_format, "rocprof");
  ASSERT_EQ(hip.rows.size(), 7u);
  EXPECT_EQ(hip.rows[0].name, "hipMalloc");
  EXPECT_EQ(hip.rows[0].calls, 2);
  EXPECT_EQ(hip.rows[0].total_ns, 812'101'234);  // 812 000 000 (first call) + 101 234
  EXPECT_EQ(hip.rows[0].avg_ns, 406'050'617);    // integer division
  EXPECT_EQ(hip.rows[5].name, "__hipPushCallConfiguration");
  EXPECT_EQ(hip.rows[5].total_ns, 620);
  EXPECT_EQ(hip.rows[5].percent, 7.515120234032868e-05);  // 620 of 825 003 434 API ns
  EXPECT_EQ(hip.rows[5].percent_text, "7.515120234032868e-05");
  EXPECT_FALSE(hip.rows[0].min_ns);
  EXPECT_EQ(hip.rows[6].line, 8u);

  const KernelStats kernels = own_stats_of(trace_fixtures::kOwnV1Hip, "results.stats.csv");
  ASSERT_EQ(kernels.rows.size(), 1u);
  EXPECT_EQ(kernels.rows[0].name, "saxpy_kernel(float, float const*, float*, int)");  // HIP-ops name: no [clone .kd]
  EXPECT_EQ(kernels.rows[0].calls, 2);
  EXPECT_EQ(kernels.rows[0].percent_text, "100.0");

  const KernelStats step = own_stats_of(trace_fixtures::kOwnV1Dir, "results.stats.csv");
  ASSERT_EQ(step.rows.size(), 10u);
  EXPECT_EQ(step.rows[2].name, "Cijk_Alik_Bljk_HHS_BH_MT32x32x128_MI16x16x1_SBTEST.kd");
  EXPECT_EQ(step.rows[2].total_ns, 17'001);
  EXPECT_EQ(step.rows[2].avg_ns, 8500);
  EXPECT_EQ(step.rows[2].percent_text, "17.001");
}

TEST(KernelStats, OwnRocprofv3WithMinMaxAndStdDev) {
  const KernelStats old = own_stats_of(trace_fixtures::kOwnV3Old, "kernel_stats.csv");
  ASSERT_EQ(old.rows.size(), 2u);
  EXPECT_EQ(old.rows[0].name, "void scale_kernel<float>(float*, float const*, float, int)");
  EXPECT_EQ(old.rows[0].calls, 4);
  EXPECT_EQ(old.rows[0].total_ns, 198'751);  // 48 000 + 50 500 + 49 250 + 51 001
  EXPECT_EQ(old.rows[0].avg_ns, 49'687.75);
  EXPECT_EQ(old.rows[0].min_ns, 48'000);
  EXPECT_EQ(old.rows[0].max_ns, 51'001);
  EXPECT_EQ(old.rows[0].stddev_text, "1344.680972");  // sqrt(5 424 500.75 / 3)
  EXPECT_EQ(old.rows[1].stddev_ns, 0.0);
  EXPECT_EQ(old.rows[1].stddev_text, "0.00000000e+00");

  const KernelStats step = own_stats_of(trace_fixtures::kOwnV3Dir, "7301_kernel_stats.csv");
  ASSERT_EQ(step.rows.size(), 10u);
  EXPECT_EQ(step.rows[1].name,
            "void sbtest::cross_device_reduce_1stage<__hip_bfloat16, 2>(sbtest::RankData*, __hip_bfloat16*, int)");
  EXPECT_EQ(step.rows[1].percent_text, "26.00");
  EXPECT_EQ(step.rows[2].avg_text, "8500.500000");
  EXPECT_EQ(step.rows[2].percent_text, "17.00");
}

TEST(KernelStats, OwnNsysSummaryFromCsvAndFromStdoutWithPreamble) {
  const KernelStats csv = own_stats_of(trace_fixtures::kOwnNsysDir, "sbtest_cuda_gpu_kern_sum.csv");
  const KernelStats out = own_stats_of(trace_fixtures::kOwnNsysDir, "stdout_cuda_gpu_kern_sum.txt");
  EXPECT_EQ(csv.source_format, "nsys");
  ASSERT_EQ(csv.rows.size(), 11u);
  ASSERT_EQ(out.rows.size(), csv.rows.size());
  for (std::size_t i = 0; i < csv.rows.size(); ++i) {
    EXPECT_EQ(out.rows[i].name, csv.rows[i].name);
    EXPECT_EQ(out.rows[i].total_ns, csv.rows[i].total_ns);
    EXPECT_EQ(out.rows[i].line, csv.rows[i].line + 2);  // two progress lines before the header
  }
  EXPECT_EQ(csv.rows[0].name, "nvjet_tst_sbtest_64x16_TNT");
  EXPECT_EQ(csv.rows[0].calls, 2);
  EXPECT_EQ(csv.rows[0].total_ns, 20'000);
  EXPECT_EQ(csv.rows[0].median_ns, 10'000.0);
  EXPECT_EQ(csv.rows[0].min_ns, 9000);
  EXPECT_EQ(csv.rows[0].stddev_text, "1414.2");
  EXPECT_EQ(csv.rows[0].percent, 27.6);  // 20 000 of 72 500 kernel ns
  EXPECT_EQ(csv.rows[1].name, "void flash::sbtest_flash_fwd_splitkv_kernel<(int)128, (bool)1>(flash::Params)");

  const KernelStats mem = own_stats_of(trace_fixtures::kOwnNsysDir, "sbtest_cuda_gpu_mem_time_sum.csv");
  ASSERT_EQ(mem.rows.size(), 3u);
  EXPECT_EQ(mem.rows[0].name, "[CUDA memcpy Host-to-Device]");
  EXPECT_EQ(mem.rows[0].calls, 2);  // "Count" column
  EXPECT_EQ(mem.rows[2].name, "[CUDA memset]");
}

TEST(KernelStats, OwnTracesAreNoSummaries) {
  EXPECT_THROW(own_stats_of(trace_fixtures::kOwnNsysDir, "sbtest_cuda_gpu_trace.csv"), UserError);
  EXPECT_TRUE(has_kernel_stats_header(trace_fixtures::own_text(trace_fixtures::kOwnNsysDir, "stdout_cuda_gpu_kern_sum.txt")));
  EXPECT_FALSE(has_kernel_stats_header(trace_fixtures::own_text(trace_fixtures::kOwnV1Dir, "results.csv")));
}

}  // namespace
}  // namespace sb::trace
