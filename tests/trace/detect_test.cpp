#include "trace/detect.hpp"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "fixtures.hpp"

namespace sb::trace {
namespace {

using trace_fixtures::fixture;

TraceFileFormat sniff(std::string_view rel) { return detect_trace_text(trace_fixtures::fixture_text(rel).substr(0, 4096)); }

TEST(DetectTrace, RecognisesEveryFixtureFromItsContent) {
  SB_REQUIRE_SHARED_FIXTURES();
  EXPECT_EQ(sniff("rocprof_v1/vllm_decode_mi300x/results.csv"), TraceFileFormat::rocprof_v1);
  EXPECT_EQ(sniff("rocprof_v1/vllm_decode_mi300x/results_timestamp_only.csv"), TraceFileFormat::rocprof_v1);
  EXPECT_EQ(sniff("rocprof_v1/vllm_decode_mi300x/results.json"), TraceFileFormat::rocprof_v1_json);
  EXPECT_EQ(sniff("rocprof_v1/real_hip_vector_add/results.json"), TraceFileFormat::rocprof_v1_json);
  EXPECT_EQ(sniff("rocprof_v1/vllm_decode_mi300x/results.stats.csv"), TraceFileFormat::kernel_stats);
  EXPECT_EQ(sniff("rocprofv3/real_sdk_docs_2024/kernel_trace.csv"), TraceFileFormat::rocprofv3_kernel);
  EXPECT_EQ(sniff("rocprofv3/real_sdk_docs_2024/memory_copy_trace.csv"), TraceFileFormat::rocprofv3_memory_copy);
  EXPECT_EQ(sniff("rocprofv3/vllm_decode_mi300x/mi300x-node01/48213_kernel_stats.csv"), TraceFileFormat::kernel_stats);
  EXPECT_EQ(sniff("rocprofv3/vllm_decode_mi300x/mi300x-node01/48213_agent_info.csv"), TraceFileFormat::unknown);
  EXPECT_EQ(sniff("nsys/vllm_decode_h100_tp2/vllm_cuda_gpu_trace.csv"), TraceFileFormat::nsys_gpu_trace);
  EXPECT_EQ(sniff("nsys/vllm_decode_h100_tp2/stdout_cuda_gpu_kern_sum.txt"), TraceFileFormat::kernel_stats);
  EXPECT_EQ(sniff("nsys/vllm_decode_h100_tp2/vllm_cuda_api_sum.csv"), TraceFileFormat::kernel_stats);
  EXPECT_EQ(sniff(trace_fixtures::kTorchFile), TraceFileFormat::torch);
  EXPECT_EQ(sniff(std::string(trace_fixtures::kTorchFile) + ".gz"), TraceFileFormat::torch_gzip);
  EXPECT_EQ(sniff("rocprof_v1/real_hip_vector_add/input.txt"), TraceFileFormat::unknown);
}

TEST(DetectTrace, FoldersPickTheirTraceFiles) {
  SB_REQUIRE_SHARED_FIXTURES();
  const DetectedTrace v3 = detect_trace_format(fixture("rocprofv3/vllm_decode_mi300x"));  // <host>/<pid>_… below
  EXPECT_EQ(v3.format, "rocprofv3");
  ASSERT_EQ(v3.files.size(), 2u);
  EXPECT_TRUE(v3.files[0].ends_with("48213_kernel_trace.csv"));
  EXPECT_TRUE(v3.files[1].ends_with("48213_memory_copy_trace.csv"));

  const DetectedTrace v1 = detect_trace_format(fixture("rocprof_v1/vllm_decode_mi300x"));
  EXPECT_EQ(v1.format, "rocprof_v1");
  ASSERT_EQ(v1.files.size(), 1u);  // results.csv wins over results_timestamp_only.csv
  EXPECT_TRUE(v1.files[0].ends_with("/results.csv"));

  const DetectedTrace torch = detect_trace_format(fixture("torch_profiler/vllm_h100_tp2_rank0"));
  EXPECT_EQ(torch.format, "torch");
  ASSERT_EQ(torch.files.size(), 1u);  // the .gz twin is dropped
  EXPECT_TRUE(torch.files[0].ends_with(".pt.trace.json"));

  EXPECT_EQ(detect_trace_format(fixture("nsys/vllm_decode_h100_tp2")).format, "nsys");
  // REAL counter-only results.csv-style file next to results.json: the JSON is the trace.
  const DetectedTrace real = detect_trace_format(fixture("rocprof_v1/real_hip_vector_add"));
  ASSERT_EQ(real.files.size(), 1u);
  EXPECT_TRUE(real.files[0].ends_with("/results.json"));
}

std::string detect_error_of(const std::string& path) {
  try {
    detect_trace_format(path);
  } catch (const UserError& e) {
    return e.what();
  }
  return "no error";
}

TEST(DetectTrace, MissingPathIsAOneLineError) {
  EXPECT_EQ(detect_error_of("/nonexistent/trace"), "/nonexistent/trace: no such file or folder");
}

TEST(DetectTrace, AmbiguousAndForeignPathsAreOneLineErrors) {
  SB_REQUIRE_SHARED_FIXTURES();
  const std::string none = fixture("gpu_telemetry");
  EXPECT_EQ(detect_error_of(none), none + ": no rocprof, rocprofv3, nsys or torch trace found");
  const std::string stats = fixture("nsys/vllm_decode_h100_tp2/vllm_cuda_gpu_kern_sum.csv");
  EXPECT_EQ(detect_error_of(stats), stats + ": not a kernel trace this tool reads (kernel_stats)");
  const std::string all = fixture("");
  EXPECT_NE(detect_error_of(all).find("traces of several profilers found"), std::string::npos) << detect_error_of(all);
}

TEST(DetectTrace, TwoRunsOfOneProfilerInAFolderAskForOne) {
  SB_REQUIRE_SHARED_FIXTURES();
  const std::string dir = ::testing::TempDir() + "/sb_trace_two_nsys";
  std::filesystem::create_directories(dir);
  const std::string text = trace_fixtures::fixture_text("nsys/vllm_decode_h100_tp2/vllm_cuda_gpu_trace.csv");
  std::ofstream(dir + "/a_cuda_gpu_trace.csv") << text;
  std::ofstream(dir + "/b_cuda_gpu_trace.csv") << text;
  EXPECT_NE(detect_error_of(dir).find(": 2 nsys traces found ("), std::string::npos) << detect_error_of(dir);
  std::filesystem::remove_all(dir);
}

TEST(DetectTrace, ParseTraceTextRefusesSummaries) {
  EXPECT_THROW(parse_trace_text(TraceFileFormat::kernel_stats, "x", "s.csv"), UserError);
  EXPECT_EQ(trace_file_format_name(TraceFileFormat::nsys_gpu_trace), "nsys_cuda_gpu_trace");
}

// The project's own samples (tests/data/trace/authored/README.md).
TraceFileFormat sniff_own(std::string_view rel) {
  return detect_trace_text(trace_fixtures::authored_text(rel).substr(0, 4096));
}

TEST(DetectTrace, RecognisesEveryOwnSampleFromItsContent) {
  const std::pair<const char*, TraceFileFormat> cases[] = {
      {"rocprof_v1/decode_step/results.csv", TraceFileFormat::rocprof_v1},
      {"rocprof_v1/decode_step/results_timestamp_only.csv", TraceFileFormat::rocprof_v1},
      {"rocprof_v1/decode_step/results.json", TraceFileFormat::rocprof_v1_json},
      {"rocprof_v1/decode_step/results.stats.csv", TraceFileFormat::kernel_stats},
      {"rocprof_v1/hip_saxpy/results.json", TraceFileFormat::rocprof_v1_json},
      {"rocprof_v1/hip_saxpy/results.hip_stats.csv", TraceFileFormat::kernel_stats},
      {"rocprof_v1/hip_saxpy/output_saxpy.csv", TraceFileFormat::rocprof_v1},  // header only; no timestamps
      {"rocprof_v1/hip_saxpy/input.txt", TraceFileFormat::unknown},
      {"rocprofv3/decode_step/sbtest-node7/7301_kernel_trace.csv", TraceFileFormat::rocprofv3_kernel},
      {"rocprofv3/decode_step/sbtest-node7/7301_memory_copy_trace.csv", TraceFileFormat::rocprofv3_memory_copy},
      {"rocprofv3/decode_step/sbtest-node7/7301_kernel_stats.csv", TraceFileFormat::kernel_stats},
      {"rocprofv3/decode_step/sbtest-node7/7301_agent_info.csv", TraceFileFormat::unknown},
      {"rocprofv3/layout_2024/kernel_trace.csv", TraceFileFormat::rocprofv3_kernel},
      {"rocprofv3/layout_2024/memory_copy_trace.csv", TraceFileFormat::rocprofv3_memory_copy},
      {"nsys/decode_step/sbtest_cuda_gpu_trace.csv", TraceFileFormat::nsys_gpu_trace},
      {"nsys/decode_step/sbtest_cuda_gpu_kern_sum.csv", TraceFileFormat::kernel_stats},
      {"nsys/decode_step/stdout_cuda_gpu_kern_sum.txt", TraceFileFormat::kernel_stats},
      {"nsys/decode_step/sbtest_cuda_api_sum.csv", TraceFileFormat::kernel_stats},
      {"torch/decode_step_rank1/rank1.1760000100000.pt.trace.json", TraceFileFormat::torch},
      {"torch/decode_step_rank1/rank1.1760000100000.pt.trace.json.gz", TraceFileFormat::torch_gzip},
      {"README.md", TraceFileFormat::unknown},
  };
  for (const auto& [rel, want] : cases) {
    EXPECT_EQ(trace_file_format_name(sniff_own(rel)), trace_file_format_name(want)) << rel;
  }
}

TEST(DetectTrace, OwnFoldersPickTheirTraceFiles) {
  const DetectedTrace v3 = detect_trace_format(trace_fixtures::authored(trace_fixtures::kOwnV3Run));  // <host>/<pid>_… below
  EXPECT_EQ(v3.format, "rocprofv3");
  ASSERT_EQ(v3.files.size(), 2u);  // stats and agent_info are left out
  EXPECT_TRUE(v3.files[0].ends_with("/sbtest-node7/7301_kernel_trace.csv")) << v3.files[0];
  EXPECT_TRUE(v3.files[1].ends_with("/sbtest-node7/7301_memory_copy_trace.csv")) << v3.files[1];

  const DetectedTrace v1 = detect_trace_format(trace_fixtures::authored(trace_fixtures::kOwnV1Dir));
  EXPECT_EQ(v1.format, "rocprof_v1");
  ASSERT_EQ(v1.files.size(), 1u);  // results.csv wins over results_timestamp_only.csv and results.json
  EXPECT_TRUE(v1.files[0].ends_with("/results.csv"));

  const DetectedTrace torch = detect_trace_format(trace_fixtures::authored(trace_fixtures::kOwnTorchDir));
  EXPECT_EQ(torch.format, "torch");
  ASSERT_EQ(torch.files.size(), 1u);  // the .gz twin is dropped
  EXPECT_TRUE(torch.files[0].ends_with(".pt.trace.json"));

  const DetectedTrace nsys = detect_trace_format(trace_fixtures::authored(trace_fixtures::kOwnNsysDir));
  EXPECT_EQ(nsys.format, "nsys");
  ASSERT_EQ(nsys.files.size(), 1u);  // the summaries beside it are no traces
  EXPECT_TRUE(nsys.files[0].ends_with("/sbtest_cuda_gpu_trace.csv"));

  // A counter-only results file next to results.json: the JSON is the trace.
  const DetectedTrace hip = detect_trace_format(trace_fixtures::authored(trace_fixtures::kOwnV1Hip));
  ASSERT_EQ(hip.files.size(), 1u);
  EXPECT_TRUE(hip.files[0].ends_with("/results.json"));

  EXPECT_EQ(detect_trace_format(trace_fixtures::authored(trace_fixtures::kOwnV3Old)).files.size(), 2u);
}

TEST(DetectTrace, FoldersAreSearchedThreeLevelsDeep) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(::testing::TempDir()) / "sb_trace_depth";
  fs::remove_all(dir);
  fs::create_directories(dir / "a/b/c/d");
  const std::string v3 = trace_fixtures::authored(trace_fixtures::kOwnV3Dir);
  fs::copy_file(v3 + "7301_kernel_trace.csv", dir / "a/b/c/7301_kernel_trace.csv");              // level 3
  fs::copy_file(v3 + "7301_memory_copy_trace.csv", dir / "a/b/c/d/7301_memory_copy_trace.csv");  // level 4
  const DetectedTrace found = detect_trace_format(dir.string());
  EXPECT_EQ(found.format, "rocprofv3");
  ASSERT_EQ(found.files.size(), 1u);
  EXPECT_TRUE(found.files[0].ends_with("/a/b/c/7301_kernel_trace.csv")) << found.files[0];
  fs::remove(dir / "a/b/c/7301_kernel_trace.csv");
  EXPECT_NE(detect_error_of(dir.string()).find(": no rocprof, rocprofv3, nsys or torch trace found"), std::string::npos)
      << detect_error_of(dir.string());
  fs::remove_all(dir);
}

TEST(DetectTrace, OwnSamplesAmbiguousAndForeignPathsAreOneLineErrors) {
  namespace fs = std::filesystem;
  const fs::path none = fs::path(::testing::TempDir()) / "sb_trace_no_trace";
  fs::remove_all(none);
  fs::create_directories(none);
  fs::copy_file(trace_fixtures::authored(std::string(trace_fixtures::kOwnV1Hip) + "input.txt"), none / "input.txt");
  fs::copy_file(trace_fixtures::authored(std::string(trace_fixtures::kOwnV3Dir) + "7301_agent_info.csv"), none / "agent_info.csv");
  EXPECT_EQ(detect_error_of(none.string()), none.string() + ": no rocprof, rocprofv3, nsys or torch trace found");
  fs::remove_all(none);
  const std::string stats = trace_fixtures::authored("nsys/decode_step/sbtest_cuda_gpu_kern_sum.csv");
  EXPECT_EQ(detect_error_of(stats), stats + ": not a kernel trace this tool reads (kernel_stats)");
  const std::string all = trace_fixtures::authored("");
  EXPECT_NE(detect_error_of(all).find("traces of several profilers found"), std::string::npos) << detect_error_of(all);
}

TEST(DetectTrace, TwoRunsOfOneProfilerInAFolderAskForOneOwnSample) {
  const std::string dir = ::testing::TempDir() + "/sb_trace_two_nsys_own";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string text = trace_fixtures::own_text(trace_fixtures::kOwnNsysDir, "sbtest_cuda_gpu_trace.csv");
  std::ofstream(dir + "/a_cuda_gpu_trace.csv") << text;
  std::ofstream(dir + "/b_cuda_gpu_trace.csv") << text;
  EXPECT_NE(detect_error_of(dir).find(": 2 nsys traces found ("), std::string::npos) << detect_error_of(dir);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace sb::trace
