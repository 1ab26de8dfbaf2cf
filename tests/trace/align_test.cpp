// Known-answer alignment: tests/data/trace/align/README.md holds the hand computation.
#include "trace/align.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "trace/fixtures.hpp"
#include "trace/load.hpp"

namespace sb::trace {
namespace {

using trace_fixtures::test_data;

constexpr std::int64_t kOffset = 1'000'000'000'000'000'000;

struct Aligned {
  KernelTrace trace;
  SweepStages sweep;
  Alignment a;
};

Aligned align_fixture(GroupBy by) {
  Aligned x;
  x.trace = load_trace(test_data("align/trace_nsys.csv"));
  x.sweep = parse_sweep_stages(read_trace_file(test_data("align/sweep.json")), "sweep.json");
  x.a = align_to_stages(x.trace, x.sweep.stages, kOffset, by);
  return x;
}

TEST(ParseSweepStages, ReadsWindowsLabelsAndNoKnee) {
  const auto s = parse_sweep_stages(read_trace_file(test_data("align/sweep.json")), "sweep.json");
  ASSERT_EQ(s.stages.size(), 2u);
  EXPECT_EQ(s.load_mode, "concurrency");
  EXPECT_EQ(s.stages[0].load_label, "c=1");
  EXPECT_EQ(s.stages[1].load_label, "c=4");
  EXPECT_EQ(s.stages[0].start_unix_ns, kOffset);
  EXPECT_EQ(s.stages[0].end_unix_ns, kOffset + 62'500'000);
  EXPECT_EQ(s.stages[1].end_unix_ns, kOffset + 125'000'000);
  EXPECT_FALSE(s.knee.has_value());
}

TEST(ParseSweepStages, RateModeInfAndKnee) {
  const auto s = parse_sweep_stages(
      R"({"load_mode":"request_rate","analysis":{"knee":{"stage_index":1}},"stages":[
      {"servebench":{"stage_index":0,"load_value":2,"start_unix_s":10,"end_unix_s":11}},
      {"servebench":{"stage_index":1,"load_value":"inf","start_unix_s":11,"end_unix_s":12.5}}]})",
      "x.json");
  EXPECT_EQ(s.stages[0].load_label, "rate=2");
  EXPECT_EQ(s.stages[1].load_label, "rate=inf");
  EXPECT_EQ(s.stages[1].end_unix_ns, 12'500'000'000);
  ASSERT_TRUE(s.knee.has_value());
  EXPECT_EQ(*s.knee, 1u);
}

TEST(ParseSweepStages, BadDocumentsNameTheFileAndWhat) {
  const auto message = [](std::string_view text) {
    try {
      parse_sweep_stages(text, "r.json");
    } catch (const UserError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message("{"), "r.json: not a JSON object (expected a sweep document from 'servebench run --output-json')");
  EXPECT_EQ(message(R"({"stages":[{"x":1}]})"),
            "r.json: stages[0] has no \"servebench\" object (not a servebench sweep document?)");
  EXPECT_EQ(message(R"({"stages":[{"servebench":{"load_value":1,"start_unix_s":5}}]})"),
            "r.json: stages[0].servebench.end_unix_s missing or not a number");
  EXPECT_EQ(message(R"({"stages":[{"servebench":{"load_value":1,"start_unix_s":5,"end_unix_s":4}}]})"),
            "r.json: stages[0] ends before it starts");
}

TEST(ResolveUnixOffset, OverrideThenStartThenTraceOwn) {
  KernelTrace t;
  t.events.push_back({.name = "k", .start_ns = 500, .end_ns = 600});
  t.events.push_back({.name = "k", .start_ns = 200, .end_ns = 300});
  EXPECT_FALSE(resolve_unix_offset(t, {}).has_value());
  t.unix_offset_ns = 7;
  EXPECT_EQ(resolve_unix_offset(t, {}), 7);
  EXPECT_EQ(resolve_unix_offset(t, {.offset_ns = 42, .start_unix_s = std::nullopt}), 42);
  // First event (200 ns) placed at Unix 3 s.
  EXPECT_EQ(resolve_unix_offset(t, {.offset_ns = std::nullopt, .start_unix_s = 3.0}), 3'000'000'000 - 200);
}

TEST(AlignToStages, KnownAnswerEventsBusyAndShares) {
  const auto x = align_fixture(GroupBy::base);
  ASSERT_EQ(x.a.stages.size(), 2u);
  EXPECT_EQ(x.a.devices, 2);
  EXPECT_EQ(x.a.outside_events, 1);
  const auto& lo = x.a.stages[0];
  const auto& hi = x.a.stages[1];
  EXPECT_EQ(lo.events, 5);
  EXPECT_EQ(hi.events, 4);
  EXPECT_EQ(lo.gpu_ns, 15'000'000);
  EXPECT_EQ(hi.gpu_ns, 40'000'000);
  EXPECT_DOUBLE_EQ(lo.busy_percent, 13e6 * 100 / 125e6);  // 10.4: overlap merged, spill clipped
  EXPECT_DOUBLE_EQ(hi.busy_percent, 41e6 * 100 / 125e6);  // 32.8: spill from c=1 counted here
  EXPECT_NEAR(lo.category_percent(KernelCategory::attention), 100.0 / 7.5, 1e-9);
  EXPECT_NEAR(lo.category_percent(KernelCategory::gemm), 1000.0 / 15, 1e-9);
  EXPECT_DOUBLE_EQ(lo.category_percent(KernelCategory::communication), 20);
  EXPECT_DOUBLE_EQ(hi.category_percent(KernelCategory::attention), 75);
  EXPECT_DOUBLE_EQ(hi.category_percent(KernelCategory::memcpy), 12.5);
  ASSERT_FALSE(hi.groups.empty());
  EXPECT_EQ(hi.groups[0].label, "vllm::paged_attention_v1_kernel");
  EXPECT_EQ(hi.groups[0].calls, 2);
  EXPECT_EQ(hi.groups[0].total_ns, 30'000'000);
  EXPECT_EQ(lo.groups[0].label, "nvjet_tst_64x8_64x16_4x1_v_bz_TNT");
  EXPECT_EQ(lo.groups[0].total_ns, 10'000'000);
}

TEST(AlignToStages, GroupByCategory) {
  const auto x = align_fixture(GroupBy::category);
  const auto& hi = x.a.stages[1];
  ASSERT_EQ(hi.groups.size(), 3u);
  EXPECT_EQ(hi.groups[0].label, "attention");
  EXPECT_EQ(hi.groups[1].label, "gemm");  // 5 ms, ties memcpy on time: label order
  EXPECT_EQ(hi.groups[2].label, "memcpy");
}

TEST(AlignToStages, WrongOffsetLeavesEveryEventOutside) {
  const auto x = align_fixture(GroupBy::base);
  const auto a = align_to_stages(x.trace, x.sweep.stages, 0, GroupBy::base);
  EXPECT_EQ(a.outside_events, 10);
  EXPECT_EQ(a.stages[0].events, 0);
  EXPECT_DOUBLE_EQ(a.stages[0].busy_percent, 0);
  EXPECT_DOUBLE_EQ(a.stages[0].category_percent(KernelCategory::gemm), 0);
}

}  // namespace
}  // namespace sb::trace
