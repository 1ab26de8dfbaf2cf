#include "trace/rocprof_v1_json.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "fixtures.hpp"
#include "trace/kernel_stats.hpp"
#include "trace/rank.hpp"
#include "trace/rocprof_v1.hpp"
#include "trace/torch_trace.hpp"

namespace sb::trace {
namespace {

using testing::fixture_text;

std::string json_in(std::string_view dir, std::string_view file) {
  return fixture_text(std::string(dir) + std::string(file));
}

TEST(RocprofV1Json, KernelLaneMatchesResultsCsvToTheNanosecond) {
  const KernelTrace json = parse_rocprof_v1_json(json_in(testing::kV1Dir, "results.json"), "results.json");
  const KernelTrace csv = parse_rocprof_v1_csv(json_in(testing::kV1Dir, "results.csv"), "results.csv");
  EXPECT_EQ(json.source_format, "rocprof_v1");
  EXPECT_EQ(json.clock_domain, "CLOCK_BOOTTIME");
  ASSERT_EQ(json.events.size(), 12u);  // the authored JSON holds the first 12 dispatches
  for (std::size_t i = 0; i < json.events.size(); ++i) {
    EXPECT_EQ(json.events[i].name, csv.events[i].name);
    EXPECT_EQ(json.events[i].start_ns, csv.events[i].start_ns);
    EXPECT_EQ(json.events[i].end_ns, csv.events[i].end_ns);
    EXPECT_EQ(json.events[i].device, 0);
    EXPECT_EQ(json.events[i].pid, 48213);
  }
}

TEST(RocprofV1Json, RealHipTraceReproducesItsOwnKernelAndCopyStats) {
  // REAL: string pids, kernel lane 10 = GPU 4 (MI300A), copies on lane 1; API lane 2 skipped.
  const KernelTrace t = parse_rocprof_v1_json(json_in(testing::kV1Real, "results.json"), "results.json");
  ASSERT_EQ(t.events.size(), 4u);
  const auto kernels = rank_kernels(t);
  ASSERT_EQ(kernels.size(), 1u);
  const KernelStats kstats = parse_kernel_stats(json_in(testing::kV1Real, "results.stats.csv"), "s");
  EXPECT_EQ(kernels[0].name, kstats.rows[0].name);
  EXPECT_EQ(kernels[0].total_ns, kstats.rows[0].total_ns);  // 3431611 ns, exact from args.BeginNs/EndNs

  KernelTrace copies = t;
  std::erase_if(copies.events, [](const KernelEvent& e) { return e.kind == OpKind::kernel; });
  const auto ranked = rank_kernels(copies, {.include_copies = true});
  const KernelStats cstats = parse_kernel_stats(json_in(testing::kV1Real, "results.copy_stats.csv"), "c");
  ASSERT_EQ(ranked.size(), cstats.rows.size());
  for (std::size_t i = 0; i < ranked.size(); ++i) {
    EXPECT_EQ(ranked[i].name, cstats.rows[i].name);
    EXPECT_EQ(ranked[i].calls, cstats.rows[i].calls);
    EXPECT_EQ(ranked[i].total_ns, cstats.rows[i].total_ns);
    EXPECT_EQ(ranked[i].percent, cstats.rows[i].percent);
  }
  EXPECT_EQ(t.events[0].device, 4);
}

TEST(RocprofV1Json, SniffingTellsItFromKinetoTraces) {
  EXPECT_TRUE(is_rocprof_v1_json(json_in(testing::kV1Real, "results.json")));
  EXPECT_FALSE(looks_like_torch_trace(json_in(testing::kV1Real, "results.json").substr(0, 4096)));
  EXPECT_FALSE(is_rocprof_v1_json(fixture_text(testing::kTorchFile)));
}

TEST(RocprofV1Json, BrokenInputIsAOneLineError) {
  EXPECT_THROW(parse_rocprof_v1_json("{ \"traceEvents\":[{}", "r.json"), UserError);
  try {
    parse_rocprof_v1_json(R"({"traceEvents":[{},{"ph":"X","pid":6,"name":"k","ts":"x","dur":"1"}]})", "r.json");
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(), "r.json: traceEvents[1]: missing or bad BeginNs/EndNs and ts/dur");
  }
  const KernelTrace us = parse_rocprof_v1_json(R"({"traceEvents":[{},{"ph":"X","pid":"7","name":"k","ts":"5","dur":"2"}]})", "r.json");
  ASSERT_EQ(us.events.size(), 1u);
  EXPECT_EQ(us.events[0].start_ns, 5000);
  EXPECT_EQ(us.events[0].end_ns, 7000);
  EXPECT_EQ(us.events[0].device, 1);  // lane 7 = GPU 1
}

}  // namespace
}  // namespace sb::trace
