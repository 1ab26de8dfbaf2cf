// The run's recorded host clocks place a CLOCK_BOOTTIME trace (rocprof, rocprofv3) with no flag;
// flags and the trace's own offset still come first.
#include <gtest/gtest.h>

#include "trace/align.hpp"

namespace sb::trace {
namespace {

constexpr const char* kSweepWithClocks = R"({"load_mode":"concurrency",
  "environment":{"clocks_at_start":{"steady_ns":5,"realtime_ns":1764470000000000000,"monotonic_ns":5,
                 "monotonic_raw_ns":4,"boottime_ns":900}},
  "stages":[{"servebench":{"stage_index":0,"load_value":1,"start_unix_s":1764470000.5,"end_unix_s":1764470001.5}}]})";

KernelTrace boottime_trace() {
  KernelTrace t;
  t.source_format = "rocprofv3";
  t.clock_domain = std::string(kClockBoottime);
  KernelEvent e;
  e.name = "gemm";
  e.start_ns = 900 + 600'000'000;  // 0.6 s after the run started, on CLOCK_BOOTTIME
  e.end_ns = e.start_ns + 1000;
  t.events.push_back(e);
  return t;
}

TEST(HostClockAlign, SweepCarriesTheRunsClocks) {
  const SweepStages s = parse_sweep_stages(kSweepWithClocks, "sweep.json");
  ASSERT_TRUE(s.clocks_at_start.has_value());
  EXPECT_EQ(s.clocks_at_start->boottime_ns, 900);
  EXPECT_EQ(s.clocks_at_start->realtime_ns, 1'764'470'000'000'000'000);
}

TEST(HostClockAlign, BoottimeTracePlacedWithoutFlags) {
  const SweepStages s = parse_sweep_stages(kSweepWithClocks, "sweep.json");
  const KernelTrace t = boottime_trace();
  const auto off = resolve_offset(t, {}, s.clocks_at_start);
  ASSERT_TRUE(off.has_value());
  EXPECT_EQ(off->source, OffsetSource::run_clocks);
  EXPECT_EQ(off->ns, 1'764'470'000'000'000'000 - 900);
  const Alignment a = align_to_stages(t, s.stages, off->ns, GroupBy::name);
  ASSERT_EQ(a.stages.size(), 1u);
  EXPECT_EQ(a.stages[0].events, 1);  // at +0.6 s: inside [0.5 s, 1.5 s)
  EXPECT_EQ(a.outside_events, 0);
}

TEST(HostClockAlign, FlagsAndTraceOffsetComeFirstNsysNeedsFlags) {
  const SweepStages s = parse_sweep_stages(kSweepWithClocks, "sweep.json");
  KernelTrace t = boottime_trace();
  const auto flag = resolve_offset(t, {std::int64_t{7}, std::nullopt}, s.clocks_at_start);
  ASSERT_TRUE(flag.has_value());
  EXPECT_EQ(flag->source, OffsetSource::flag);
  EXPECT_EQ(flag->ns, 7);
  t.unix_offset_ns = 42;  // a sim sidecar
  const auto own = resolve_offset(t, {}, s.clocks_at_start);
  EXPECT_EQ(own->source, OffsetSource::trace);
  EXPECT_EQ(own->ns, 42);
  KernelTrace nsys = boottime_trace();
  nsys.clock_domain = std::string(kClockNsysSession);
  EXPECT_FALSE(resolve_offset(nsys, {}, s.clocks_at_start).has_value());
  // An older sweep (no clocks): as before, no offset.
  EXPECT_FALSE(resolve_offset(boottime_trace(), {}, std::nullopt).has_value());
}

}  // namespace
}  // namespace sb::trace
