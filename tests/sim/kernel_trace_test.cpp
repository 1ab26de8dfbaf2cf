// The simulated kernel traces: step layout (kernels fill the step's device time exactly) and the
// three writers' rows against the tools' headers, as written in the shared fixtures (skipped where
// ../shared is absent) and in the project's own samples (tests/data/trace/authored).
#include "sim/kernel_trace.hpp"

#include <fstream>
#include <gtest/gtest.h>
#include <sstream>

#include "engine_test_util.hpp"
#include "support/test_paths.hpp"

namespace sb::sim {
namespace {

// RFC-4180 fields (quoted fields may hold commas; "" escapes a quote).
std::vector<std::string> csv_split(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (c == '"') {
      if (quoted && i + 1 < line.size() && line[i + 1] == '"') {
        out.back() += '"';
        ++i;
      } else {
        quoted = !quoted;
      }
    } else if (c == ',' && !quoted) {
      out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  return out;
}

std::size_t csv_fields(const std::string& line) { return csv_split(line).size(); }

std::string first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

StepShape decode_shape() {
  StepShape s;
  s.decode_tokens = 8;
  s.sampled_tokens = 8;
  s.num_seqs = 8;
  s.kv_tokens_read = 8000;
  s.attention_pairs = 8008;
  return s;
}

TEST(KernelTracePlan, KernelsFillTheDeviceBusyTimeOfTheStep) {
  const CostModel model(testing_util::make_config("llama-3-8b", "h100").hardware);
  const StepCost cost = model.step_cost(decode_shape());
  const Nanos start = 1'000'000;
  const Nanos end = start + cost.total_ns();
  std::vector<KernelEvent> k;
  plan_step_kernels(model, decode_shape(), cost, {start, end, 1.0}, k);
  ASSERT_EQ(k.size(), 1u + 32 * 10 + 4);  // H2D copy, 10 kernels × 32 layers, head
  EXPECT_TRUE(k.front().copy);
  EXPECT_EQ(k.back().end_ns, end);
  // After the host overhead: 800 µs + 8 sequences · 60 µs.
  EXPECT_NEAR(static_cast<double>(k.front().start_ns), static_cast<double>(start) + 1.28e6, 1.0);
  for (std::size_t i = 1; i < k.size(); ++i) {
    EXPECT_EQ(k[i].start_ns, k[i - 1].end_ns);
    EXPECT_GE(k[i].end_ns, k[i].start_ns);
  }
  EXPECT_NE(k[5].name.find("flash_fwd"), std::string_view::npos);  // attention is the 5th of layer 0
}

TEST(KernelTracePlan, TensorParallelAddsAllReducesAndAmdNames) {
  const CostModel model(testing_util::make_config("llama-3-70b", "mi300x", 2).hardware);
  const StepCost cost = model.step_cost(decode_shape());
  std::vector<KernelEvent> k;
  plan_step_kernels(model, decode_shape(), cost, {0, cost.total_ns(), 1.0}, k);
  ASSERT_EQ(k.size(), 1u + 80 * 12 + 4);
  EXPECT_EQ(k.front().name, "__amd_rocclr_copyBuffer");
  EXPECT_NE(k[7].name.find("cross_device_reduce"), std::string_view::npos);
}

struct HeaderSample {
  TraceFormat format;
  const char* path;  // under ../shared/fixtures when `shared`, else under the source tree
  bool shared;
};

void PrintTo(const HeaderSample& s, std::ostream* os) { *os << s.path; }

class TraceFormats : public ::testing::TestWithParam<HeaderSample> {};

TEST_P(TraceFormats, HeaderEqualsTheRealToolsAndRowsHaveItsColumns) {
  const auto [format, sample, shared] = GetParam();
  if (shared) SB_REQUIRE_SHARED_FIXTURES();
  const std::string sample_path = shared ? sb::test_files::shared_fixture(sample) : sb::test_files::source_path(sample);
  const std::string want = first_line(sample_path);
  ASSERT_FALSE(want.empty()) << sample_path << ": missing or empty";
  const CostModel model(testing_util::make_config("llama-3-8b", "h100").hardware);
  const StepCost cost = model.step_cost(decode_shape());
  std::vector<KernelEvent> k;
  plan_step_kernels(model, decode_shape(), cost, {100, 100 + cost.total_ns(), 1.0}, k);
  KernelTraceFormatter f(format, {"NVIDIA H100 80GB HBM3 (simulated)", false, 4242}, 1000);
  std::string text = f.header();
  f.append_rows(k, text);
  std::istringstream in(text);
  std::string header;
  std::getline(in, header);
  EXPECT_EQ(header, want);
  std::string row;
  std::size_t rows = 0;
  while (std::getline(in, row)) {
    EXPECT_EQ(csv_fields(row), csv_fields(header)) << row;
    ++rows;
  }
  EXPECT_EQ(rows, k.size());
}

INSTANTIATE_TEST_SUITE_P(
    All, TraceFormats,
    ::testing::Values(HeaderSample{TraceFormat::rocprof_v1, "rocprof_v1/vllm_decode_mi300x/results.csv", true},
                      HeaderSample{TraceFormat::rocprofv3,
                                   "rocprofv3/vllm_decode_mi300x/mi300x-node01/48213_kernel_trace.csv", true},
                      HeaderSample{TraceFormat::nsys, "nsys/vllm_decode_h100_tp2/vllm_cuda_gpu_trace.csv", true}));

INSTANTIATE_TEST_SUITE_P(
    ProjectSamples, TraceFormats,
    ::testing::Values(
        HeaderSample{TraceFormat::rocprof_v1, "tests/data/trace/authored/rocprof_v1/decode_step/results.csv", false},
        HeaderSample{TraceFormat::rocprofv3,
                     "tests/data/trace/authored/rocprofv3/decode_step/sbtest-node7/7301_kernel_trace.csv", false},
        HeaderSample{TraceFormat::nsys, "tests/data/trace/authored/nsys/decode_step/sbtest_cuda_gpu_trace.csv",
                     false}));

TEST(KernelTraceFormat, RowsCarryNamesAndTimestampsInTheToolsConventions) {
  const std::vector<KernelEvent> k = {{"kernel_unified_attention_2d", 5000, 7000, false},
                                      {"void vllm::rms_norm_kernel<float>(float*, int)", 7000, 7500, false}};
  std::string v1_text;
  KernelTraceFormatter(TraceFormat::rocprof_v1, {"AMD Instinct MI300X", true, 7}, 1'000'000).append_rows(k, v1_text);
  std::istringstream v1(v1_text);
  std::string row;
  std::getline(v1, row);
  auto f = csv_split(row);
  EXPECT_EQ(f[1], "kernel_unified_attention_2d.kd");  // plain symbol
  EXPECT_EQ(f[5], "7");                               // pid
  EXPECT_EQ(f[18], "1005000");                        // BeginNs = steady + BOOTTIME offset
  EXPECT_EQ(f[19], "1007000");
  EXPECT_EQ(f[21], "2000");                         // DurationNs
  EXPECT_LT(std::stoll(f[17]), std::stoll(f[18]));  // dispatched before it began
  std::getline(v1, row);
  EXPECT_EQ(csv_split(row)[1], "void vllm::rms_norm_kernel<float>(float*, int) [clone .kd]");

  std::string v3_text;
  KernelTraceFormatter(TraceFormat::rocprofv3, {"AMD Instinct MI300X", true, 7}, 1'000'000).append_rows(k, v3_text);
  f = csv_split(v3_text.substr(0, v3_text.find('\n')));
  EXPECT_EQ(f[0], "KERNEL_DISPATCH");
  EXPECT_EQ(f[7], "kernel_unified_attention_2d");  // no .kd in rocprofv3
  EXPECT_EQ(f[9], "1005000");
  EXPECT_EQ(f[10], "1007000");

  std::string ns_text;
  KernelTraceFormatter(TraceFormat::nsys, {"NVIDIA H100 80GB HBM3", false, 7}, -5000).append_rows(k, ns_text);
  const std::string second = ns_text.substr(ns_text.find('\n') + 1);
  f = csv_split(second.substr(0, second.find('\n')));
  EXPECT_EQ(f[0], "2000");  // ns since the session started at steady 5000
  EXPECT_EQ(f[1], "500");
  EXPECT_EQ(f[16], "NVIDIA H100 80GB HBM3 (0)");
  EXPECT_EQ(f[20], "void vllm::rms_norm_kernel<float>(float*, int)");  // was quoted: it has a comma
}

}  // namespace
}  // namespace sb::sim
