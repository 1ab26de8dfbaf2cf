// PeriodicPoll: the first tick comes at once, not a period later, and destroying the poll ends a
// wait of an hour at once (a join that waited for the deadline would hang the test: ctest's timeout
// fails it). Ticks keep coming at a short period.
#include "telemetry/periodic_poll.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace sb::telemetry {
namespace {

void wait_for_ticks(const std::atomic<int>& ticks, int n) {
  for (int i = 0; i < 20000 && ticks.load() < n; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

TEST(PeriodicPoll, FirstTickAtOnceAndDestructionEndsALongWait) {
  std::atomic<int> ticks{0};
  {
    const PeriodicPoll poll(3600, [&] { ticks.fetch_add(1); });
    wait_for_ticks(ticks, 1);
    EXPECT_EQ(ticks.load(), 1);
  }  // joins here, an hour before the next deadline
  EXPECT_EQ(ticks.load(), 1);
}

TEST(PeriodicPoll, TicksRepeatAtTheirPeriod) {
  std::atomic<int> ticks{0};
  const PeriodicPoll poll(0.001, [&] { ticks.fetch_add(1); });
  wait_for_ticks(ticks, 5);
  EXPECT_GE(ticks.load(), 5);
}

}  // namespace
}  // namespace sb::telemetry
