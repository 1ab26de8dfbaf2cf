// Tests for src/metrics/peaks.cpp: sweep-line overlap and 1-second bins, hand-counted.
#include "metrics/peaks.hpp"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

namespace sb {
namespace {

int max_overlap(const std::vector<std::pair<Nanos, Nanos>>& intervals) {
  InFlightSteps steps;
  steps.reserve(intervals.size());
  for (const auto& [begin_ns, end_ns] : intervals) steps.add(begin_ns, end_ns);
  steps.sort();
  return steps.max_overlap();
}

TEST(Peaks, OverlapCountsHalfOpenIntervals) {
  // [0,10) [5,15) [10,20) [12,13): at 12 three are open ([5,15) [10,20) [12,13)).
  const std::vector<std::pair<Nanos, Nanos>> v{{0, 10}, {5, 15}, {10, 20}, {12, 13}};
  EXPECT_EQ(max_overlap(v), 3);
}

TEST(Peaks, DepartureBeforeArrivalAtSameTime) {
  // One slot reused back to back: never two at once.
  const std::vector<std::pair<Nanos, Nanos>> v{{0, 10}, {10, 20}, {20, 30}};
  EXPECT_EQ(max_overlap(v), 1);
  EXPECT_EQ(max_overlap(std::vector<std::pair<Nanos, Nanos>>{}), 0);
  EXPECT_EQ(max_overlap(std::vector<std::pair<Nanos, Nanos>>{{5, 5}}), 0);  // empty interval
}

TEST(Peaks, SecondBins) {
  constexpr Nanos s = 1'000'000'000;
  SecondBins bins(2 * s, 5 * s);  // bins [2,3) [3,4) [4,5) [5,6)
  for (Nanos t : {2 * s, 2 * s + 1, 3 * s - 1, 3 * s, 5 * s}) bins.add(t);
  EXPECT_EQ(bins.max_count(), 3);  // 2.0, 2.0+, 2.999 in the first bin
  bins.add(10 * s);                // beyond t_max: clamped into the last bin, never out of range
  bins.add(0);                     // before t_min: clamped into the first bin
  EXPECT_EQ(bins.max_count(), 4);
}

}  // namespace
}  // namespace sb
