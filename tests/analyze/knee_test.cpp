#include "analyze/knee.hpp"

#include <cmath>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

namespace sb::analyze {
namespace {

CurveAnalysis run(const std::vector<double>& x, const std::vector<double>& y, const std::vector<double>& ttft = {}) {
  return analyze_curve({x, y, ttft});
}

TEST(Knee, LinearThenFlatLandsOnLastLinearStage) {
  // 2 req/s per slot up to 16, then +2 and +1 over doublings: far below half of linear.
  auto a = run({1, 2, 4, 8, 16, 32, 64, 128}, {2, 4, 8, 16, 32, 34, 35, 33});
  ASSERT_TRUE(a.knee.has_value());
  EXPECT_EQ(*a.knee, 4u);
  EXPECT_EQ(*a.peak, 6u);
  ASSERT_EQ(a.regions.size(), 8u);
  EXPECT_EQ(a.regions[4].region, Region::linear);
  EXPECT_EQ(a.regions[5].region, Region::plateau);
  EXPECT_EQ(a.regions[6].region, Region::plateau);  // the peak
  EXPECT_EQ(a.regions[7].region, Region::decline);  // 33 is 5.7 % below the 35 peak
}

TEST(Knee, NoiseDipAndSpikeDoNotMoveIt) {
  auto a = run({1, 2, 4, 8, 16, 32, 64}, {2.1, 3.8, 7.0, 17.0, 33.0, 36.0, 35.0});
  ASSERT_TRUE(a.knee.has_value());
  EXPECT_EQ(*a.knee, 4u);
}

TEST(Knee, NonMonotoneCurveHasDeclineAfterPeak) {
  auto a = run({1, 2, 4, 8, 16, 32, 64}, {4, 8, 16, 30, 31, 24, 18});
  ASSERT_TRUE(a.knee.has_value());
  EXPECT_EQ(*a.knee, 3u);
  EXPECT_EQ(*a.peak, 4u);
  EXPECT_EQ(a.regions[3].region, Region::linear);
  EXPECT_EQ(a.regions[4].region, Region::plateau);
  EXPECT_EQ(a.regions[5].region, Region::decline);
  EXPECT_EQ(a.regions[6].region, Region::decline);
  EXPECT_EQ(a.regions[5].reason, RegionReason::overload);
  EXPECT_NEAR(1 - a.regions[5].throughput / a.regions[5].peak_throughput, 0.23, 0.005);
}

TEST(Knee, NoKneeWithinTestedRange) {
  auto a = run({1, 2, 4, 8}, {3, 6, 12, 24});
  EXPECT_FALSE(a.knee.has_value());
  EXPECT_EQ(a.knee_reason, KneeReason::none_in_range);
  EXPECT_DOUBLE_EQ(a.linear_slope, 3);
  for (const auto& r : a.regions) EXPECT_EQ(r.region, Region::linear);
}

TEST(Knee, LastStageIsNeverTheKnee) {
  // The drop happens only at the last stage: the knee is the stage before it.
  auto a = run({1, 2, 4, 8}, {3, 6, 12, 12});
  ASSERT_TRUE(a.knee.has_value());
  EXPECT_EQ(*a.knee, 2u);
}

TEST(Knee, RateSweepSaturating) {
  auto a = run({1, 2, 4, 8, 16}, {1, 2, 4, 6.5, 6.8});
  ASSERT_TRUE(a.knee.has_value());
  EXPECT_EQ(*a.knee, 3u);
}

TEST(Knee, RateSweepKneeIsNotAStageFarBelowItsOfferedRate) {
  // Measured on `sim --cost engine --max-num-seqs 8` at 10, 20, 40, 80 req/s and inf: rate 80 gains
  // just over half of linear (so the marginal rule alone picks it) but achieves only 71 % of the
  // extrapolated 77.7 req/s; 40 achieves 91 %.
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> x{10, 20, 40, 80, inf}, y{9.71, 18.82, 35.52, 55.13, 57.87};
  EXPECT_EQ(run(x, y).knee, std::optional<std::size_t>(3));  // share rule off: concurrency sweeps
  KneeParams rate;
  rate.min_share_of_linear = 0.8;
  const auto a = analyze_curve({x, y, {}}, rate);
  EXPECT_EQ(a.knee, std::optional<std::size_t>(2));
  EXPECT_EQ(a.knee_reason, KneeReason::later_stages_overloaded);
  EXPECT_EQ(a.regions[2].reason, RegionReason::knee);
  // Past the knee each stage states its own marginal gain: (55.13 - 35.52) / (40 x 0.971) = 50.5 %.
  EXPECT_EQ(a.regions[3].reason, RegionReason::operating_zone);
  EXPECT_NEAR(a.regions[3].efficiency, 0.505, 0.001);
  EXPECT_EQ(a.regions[4].reason, RegionReason::operating_zone);
  EXPECT_TRUE(std::isnan(a.regions[4].efficiency));  // no marginal gain into a rate-inf stage
  // The words are report/'s: tests/report/analysis_text_test.cpp.
}

TEST(Knee, UnlimitedRateStageIsNeverTheKneeButCountsAsLater) {
  const double inf = std::numeric_limits<double>::infinity();
  auto a = run({1, 2, 4, inf}, {1, 2, 4, 4.1});
  ASSERT_TRUE(a.knee.has_value());
  EXPECT_EQ(*a.knee, 2u);
}

TEST(Knee, ZeroThroughputHasNoKnee) {
  auto a = run({1, 2}, {0, 0});
  EXPECT_FALSE(a.knee.has_value());
  EXPECT_EQ(a.regions.size(), 2u);
}

TEST(Knee, EmptyCurve) {
  auto a = run({}, {});
  EXPECT_FALSE(a.knee.has_value());
  EXPECT_TRUE(a.regions.empty());
}

TEST(Knee, TtftSteepRiseIsFirstStageStayingAboveTwiceTheFloor) {
  // 120 at stage 2 is a blip (stage 3 is back under 100): the rise starts at stage 4.
  auto a = run({1, 2, 4, 8, 16, 32}, {1, 2, 4, 8, 16, 32}, {50, 55, 120, 70, 200, 900});
  ASSERT_TRUE(a.ttft_rise.has_value());
  EXPECT_EQ(*a.ttft_rise, 4u);
  auto flat = run({1, 2, 4}, {1, 2, 4}, {50, 60, 70});
  EXPECT_FALSE(flat.ttft_rise.has_value());
  // A cold first stage (90 ms) does not raise the floor: 40 ms is, so the rise starts at 120 ms.
  auto cold = run({1, 2, 4, 8}, {1, 2, 4, 8}, {90, 40, 120, 300});
  EXPECT_EQ(cold.ttft_rise, std::optional<std::size_t>(2));
}

TEST(Knee, TtftSteepRiseIsWhereTtftOutgrowsTheLoad) {
  // Measured on `sim --cost engine --max-num-seqs 8` at c = 1..64: batching more prefills doubles TTFT
  // by c = 8 (31.6 > 2 x 13.7) while it grows slower than the load; queueing starts at c = 16 (x5.3
  // for x2 load).
  const std::vector<double> c{1, 2, 4, 8, 16, 32, 64}, rps{8.3, 15.5, 29.9, 55.3, 58, 57.9, 58};
  auto a = run(c, rps, {13.7, 18.6, 22.2, 31.6, 168.0, 442.0, 714.0});
  EXPECT_EQ(a.ttft_rise, std::optional<std::size_t>(4));
  // --max-num-seqs 16: queueing starts one doubling later.
  auto b = run(c, rps, {12.0, 19.5, 21.5, 35.3, 51.4, 209.4, 364.9});
  EXPECT_EQ(b.ttft_rise, std::optional<std::size_t>(5));
  // Gradual growth that never outpaces the load: the first stage above 2x the floor.
  auto gradual = run({1, 2, 4, 8}, {1, 2, 4, 8}, {10, 15, 25, 40});
  EXPECT_EQ(gradual.ttft_rise, std::optional<std::size_t>(2));
  // An unlimited-rate stage: a jump above the rise factor (2x) counts as steep.
  const double inf = std::numeric_limits<double>::infinity();
  auto rate = run({1, 4, inf}, {1, 4, 5}, {10, 21, 100});
  EXPECT_EQ(rate.ttft_rise, std::optional<std::size_t>(2));
}

TEST(Knee, ThresholdIsAParameter) {
  KneeParams p;
  p.min_efficiency = 0.9;  // stage 3 gains 75 % of linear: a knee at 0.9, none at 0.5
  std::vector<double> x{1, 2, 3, 4}, y{10, 20, 30, 37.5};
  EXPECT_EQ(analyze_curve({x, y, {}}, p).knee, std::optional<std::size_t>(2));
  EXPECT_FALSE(analyze_curve({x, y, {}}).knee.has_value());
}

}  // namespace
}  // namespace sb::analyze
