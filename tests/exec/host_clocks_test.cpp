// core/host_clocks.hpp: the clock offsets a same-host trace is placed by. Each difference is taken
// from the tightest of a few attempts bracketed by CLOCK_MONOTONIC reads, so a thread preempted
// between two reads does not move a trace by a time slice.
#include "core/host_clocks.hpp"

#include <gtest/gtest.h>

#include <cstdlib>

namespace sb {
namespace {

TEST(HostClocks, AClockAgainstItselfIsZeroToTheMicrosecond) {
  // b is read before and after a: a - the bracket's midpoint is 0 (± the reads' own cost).
  for (int i = 0; i < 100; ++i) {
    EXPECT_LT(std::llabs(HostClocks::offset_ns(CLOCK_MONOTONIC, CLOCK_MONOTONIC)), 1'000) << i;
  }
}

TEST(HostClocks, OffsetsAgreeWithASnapshotOfAllClocks) {
  const HostClocks c = HostClocks::now();
  const std::int64_t realtime_minus_monotonic = c.realtime_ns - c.monotonic_ns;
  const std::int64_t boottime_minus_monotonic = c.boottime_ns - c.monotonic_ns;
  // Two ways to the same offsets, microseconds apart: the clocks do not drift that fast, and a
  // preempted read (ms) is what the bracketing rules out in both.
  EXPECT_LT(std::llabs(HostClocks::offset_ns(CLOCK_REALTIME, CLOCK_MONOTONIC) - realtime_minus_monotonic), 100'000);
  EXPECT_LT(std::llabs(HostClocks::offset_ns(CLOCK_BOOTTIME, CLOCK_MONOTONIC) - boottime_minus_monotonic), 100'000);
  EXPECT_GE(boottime_minus_monotonic, -HostClocks::kTightNs);  // BOOTTIME = MONOTONIC + time suspended
  EXPECT_GT(c.steady_ns, 0);
}

}  // namespace
}  // namespace sb
