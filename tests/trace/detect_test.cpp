#include "trace/detect.hpp"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "fixtures.hpp"

namespace sb::trace {
namespace {

using testing::fixture;

TraceFileFormat sniff(std::string_view rel) { return detect_trace_text(testing::fixture_text(rel).substr(0, 4096)); }

TEST(DetectTrace, RecognisesEveryFixtureFromItsContent) {
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
  EXPECT_EQ(sniff(testing::kTorchFile), TraceFileFormat::torch);
  EXPECT_EQ(sniff(std::string(testing::kTorchFile) + ".gz"), TraceFileFormat::torch_gzip);
  EXPECT_EQ(sniff("rocprof_v1/real_hip_vector_add/input.txt"), TraceFileFormat::unknown);
}

TEST(DetectTrace, FoldersPickTheirTraceFiles) {
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

TEST(DetectTrace, AmbiguousMissingAndForeignPathsAreOneLineErrors) {
  const std::string none = fixture("gpu_telemetry");
  EXPECT_EQ(detect_error_of(none), none + ": no rocprof, rocprofv3, nsys or torch trace found");
  EXPECT_EQ(detect_error_of("/nonexistent/trace"), "/nonexistent/trace: no such file or folder");
  const std::string stats = fixture("nsys/vllm_decode_h100_tp2/vllm_cuda_gpu_kern_sum.csv");
  EXPECT_EQ(detect_error_of(stats), stats + ": not a kernel trace this tool reads (kernel_stats)");
  const std::string all = fixture("");
  EXPECT_NE(detect_error_of(all).find("traces of several profilers found"), std::string::npos) << detect_error_of(all);
}

TEST(DetectTrace, TwoRunsOfOneProfilerInAFolderAskForOne) {
  const std::string dir = ::testing::TempDir() + "/sb_trace_two_nsys";
  std::filesystem::create_directories(dir);
  const std::string text = testing::fixture_text("nsys/vllm_decode_h100_tp2/vllm_cuda_gpu_trace.csv");
  std::ofstream(dir + "/a_cuda_gpu_trace.csv") << text;
  std::ofstream(dir + "/b_cuda_gpu_trace.csv") << text;
  EXPECT_NE(detect_error_of(dir).find(": 2 nsys traces found ("), std::string::npos) << detect_error_of(dir);
  std::filesystem::remove_all(dir);
}

TEST(DetectTrace, ParseTraceTextRefusesSummaries) {
  EXPECT_THROW(parse_trace_text(TraceFileFormat::kernel_stats, "x", "s.csv"), UserError);
  EXPECT_EQ(trace_file_format_name(TraceFileFormat::nsys_gpu_trace), "nsys_cuda_gpu_trace");
}

}  // namespace
}  // namespace sb::trace
