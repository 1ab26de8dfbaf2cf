#include "sim/engine_backend.hpp"

#include <ctime>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <set>
#include <sstream>

#include "engine_test_util.hpp"
#include "sim/virtual_clock.hpp"
#include "trace/categories.hpp"
#include "trace/load.hpp"

namespace sb::sim {
namespace {

std::string read_all(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::size_t count_lines(const std::string& text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

TEST(EngineBackend, ProfilingWithoutATraceFileIsRefused) {
  EngineBackend backend(testing_util::make_config("llama-3.2-1b", "h100"), {});
  EXPECT_FALSE(backend.start_profile(0));
  EXPECT_FALSE(backend.stop_profile(0));
}

TEST(EngineBackend, WritesStepsOnlyWhileProfiling) {
  const std::string path = ::testing::TempDir() + "/sb_engine_trace_v3.csv";
  EngineBackend backend(testing_util::make_config("llama-3.2-1b", "mi300x"), {path, TraceFormat::rocprofv3});
  std::vector<TokenEvent> events;
  // Virtual time starts at the real steady "now" so the CLOCK_BOOTTIME check below is meaningful on a
  // machine that has been up for more than the tolerance.
  const Nanos t0 = now_ns();
  backend.submit({0, 32, 3, true, 0}, t0);
  Nanos t = *backend.advance(t0, events);  // step 1 runs unrecorded
  ASSERT_TRUE(backend.start_profile(t));
  while (auto next = backend.advance(t, events)) t = *next;  // steps 2 and 3 recorded
  ASSERT_TRUE(backend.stop_profile(t));
  const std::string text = read_all(path);
  // 16 layers × 10 kernels + H2D copy + 4 head kernels per step, two steps, one header.
  EXPECT_EQ(count_lines(text), 1u + 2 * (1 + 16 * 10 + 4));
  EXPECT_NE(text.find("\"KERNEL_DISPATCH\",\"Agent 2\""), std::string::npos);

  // Timestamps are CLOCK_BOOTTIME ns: the first row's start is near "now" in that clock.
  timespec boot{};
  clock_gettime(CLOCK_BOOTTIME, &boot);
  const std::string row = text.substr(text.find('\n') + 1);
  std::size_t pos = 0;
  for (int i = 0; i < 9; ++i) pos = row.find(',', pos) + 1;
  const long long start = std::stoll(row.substr(pos));
  const long long boot_ns = static_cast<long long>(boot.tv_sec) * 1'000'000'000 + boot.tv_nsec;
  EXPECT_LT(std::llabs(boot_ns - start), 3'600'000'000'000LL) << "start " << start << " vs boottime " << boot_ns;

  const std::string meta = read_all(path + ".servebench.json");
  EXPECT_NE(meta.find("\"simulated\": true"), std::string::npos);
  EXPECT_NE(meta.find("\"clock_domain\": \"CLOCK_BOOTTIME_ns\""), std::string::npos);
  std::filesystem::remove(path);
  std::filesystem::remove(path + ".servebench.json");
}

TEST(EngineBackend, RepeatedProfilesGoToNumberedFiles) {
  const std::string path = ::testing::TempDir() + "/sb_engine_trace_rot.csv";
  EngineBackend backend(testing_util::make_config("llama-3.2-1b", "h100"), {path, TraceFormat::rocprofv3});
  std::vector<TokenEvent> events;
  Nanos t = 0;
  // Profile k records k + 1 steps (one request of k + 1 tokens: prefill step + k decode steps), so
  // each file's row count says which profile wrote it and that nothing was overwritten.
  for (std::uint64_t k = 0; k < 3; ++k) {
    ASSERT_TRUE(backend.start_profile(t));
    EXPECT_EQ(backend.profile_path(), k == 0 ? path : path + "." + std::to_string(k));
    backend.submit({k, 32, static_cast<int>(k) + 1, true, 0}, t);
    while (auto next = backend.advance(t, events)) t = *next;
    ASSERT_TRUE(backend.stop_profile(t));
  }
  const std::size_t rows_per_step = 1 + 16 * 10 + 4;
  EXPECT_EQ(count_lines(read_all(path)), 1u + 1 * rows_per_step);
  EXPECT_EQ(count_lines(read_all(path + ".1")), 1u + 2 * rows_per_step);
  EXPECT_EQ(count_lines(read_all(path + ".2")), 1u + 3 * rows_per_step);
  EXPECT_NE(read_all(path + ".2.servebench.json").find("\"rows\": " + std::to_string(3 * rows_per_step)),
            std::string::npos);
  for (const char* suffix : {"", ".1", ".2"}) {
    std::filesystem::remove(path + suffix);
    std::filesystem::remove(path + suffix + ".servebench.json");
  }
}

TEST(EngineBackend, StopsRecordingAtTheRowLimit) {
  const std::string path = ::testing::TempDir() + "/sb_engine_trace_cap.csv";
  EngineBackend backend(testing_util::make_config("llama-3.2-1b", "h100"), {path, TraceFormat::nsys, 400});
  ASSERT_TRUE(backend.start_profile(0));
  std::vector<TokenEvent> events;
  backend.submit({0, 32, 5, true, 0}, 0);
  for (auto t = backend.advance(0, events); t; t = backend.advance(*t, events)) {
  }
  ASSERT_TRUE(backend.stop_profile(0));
  EXPECT_EQ(events.size(), 5u);  // the engine itself is unaffected
  // 165 rows per step: two whole steps fit in 400, the third would not.
  EXPECT_EQ(count_lines(read_all(path)), 1u + 2 * 165);
  const std::string meta = read_all(path + ".servebench.json");
  EXPECT_NE(meta.find("\"rows\": 330, \"truncated\": true"), std::string::npos) << meta;
  std::filesystem::remove(path);
  std::filesystem::remove(path + ".servebench.json");
}


// What a profile written between start_profile and stop_profile looks like to the project's own
// trace readers: detected as the tool's format, in its clock domain, marked simulated, with the
// kernel families of a real vLLM step.
struct LoadBackCase {
  TraceFormat format;
  const char* gpu;
  std::string_view source_format;
  std::string_view clock_domain;
};

class ProfileLoadsBack : public ::testing::TestWithParam<LoadBackCase> {};

TEST_P(ProfileLoadsBack, AsTheRealFormat) {
  const LoadBackCase c = GetParam();
  const std::string path = ::testing::TempDir() + "/sb_load_back_" + std::string(c.source_format) + ".csv";
  EngineBackend backend(testing_util::make_config("llama-3.2-1b", c.gpu), {path, c.format});
  std::vector<TokenEvent> events;
  Nanos t = now_ns();
  ASSERT_TRUE(backend.start_profile(t));
  backend.submit({0, 40, 4, true, 0}, t);
  backend.submit({1, 24, 4, true, 0}, t);
  while (auto next = backend.advance(t, events)) t = *next;
  ASSERT_TRUE(backend.stop_profile(t));

  const trace::KernelTrace kt = trace::load_trace_file(path);
  EXPECT_EQ(kt.source_format, c.source_format);
  EXPECT_EQ(kt.clock_domain, c.clock_domain);
  EXPECT_TRUE(kt.simulated);
  EXPECT_TRUE(kt.warnings.empty()) << kt.warnings.front();
  // 4 steps (one prefill with the first token, three decodes) × (H2D + 16 layers × 10 + 4 head kernels).
  ASSERT_EQ(kt.events.size(), 4u * (1 + 16 * 10 + 4));
  std::set<std::string_view> seen;
  for (std::size_t i = 0; i < kt.events.size(); ++i) {
    EXPECT_GT(kt.events[i].end_ns, kt.events[i].start_ns);
    if (i > 0) {
      EXPECT_GE(kt.events[i].start_ns, kt.events[i - 1].end_ns);  // one stream: no overlap
    }
    seen.insert(trace::category_name(trace::categorize(kt.events[i])));
  }
  for (const char* family : {"attention", "gemm", "kv_cache_write", "norm_activation", "sampling", "memcpy"})
    EXPECT_TRUE(seen.count(family)) << family;
  std::filesystem::remove(path);
  std::filesystem::remove(path + ".servebench.json");
}

INSTANTIATE_TEST_SUITE_P(
    AllFormats, ProfileLoadsBack,
    ::testing::Values(LoadBackCase{TraceFormat::rocprof_v1, "mi300x", "rocprof_v1", trace::kClockBoottime},
                      LoadBackCase{TraceFormat::rocprofv3, "mi250", "rocprofv3", trace::kClockBoottime},
                      LoadBackCase{TraceFormat::nsys, "h100", "nsys", trace::kClockNsysSession}),
    [](const auto& info) { return std::string(info.param.source_format); });

}  // namespace
}  // namespace sb::sim
