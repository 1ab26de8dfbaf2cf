// Known-answer curves for the knee and regions (docs/report.md "Knee method"): curves generated from
// a fixed-capacity model whose capacity is known, curves measured on `servebench sim --cost engine`,
// noisy dips, rate sweeps, failed stages.
#include "analyze/knee.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

namespace sb::analyze {
namespace {

const double kInf = std::numeric_limits<double>::infinity();

CurveAnalysis run(const std::vector<double>& x, const std::vector<double>& y, const std::vector<double>& ttft = {}) {
  return analyze_curve({x, y, ttft});
}

// A closed-loop server with `slots` parallel slots and a fixed service time (what `sim --cost fixed
// --max-concurrency SLOTS` is): throughput min(N, slots) / S, latency S until the slots are full and
// N / slots x S after (the excess waits in the queue).
struct FixedCapacity {
  std::vector<double> load, rps, e2el_ms;
  FixedCapacity(const std::vector<double>& loads, double slots, double service_ms) : load(loads) {
    for (double n : loads) {
      rps.push_back(std::min(n, slots) / (service_ms / 1000));
      e2el_ms.push_back(service_ms * std::max(1.0, n / slots));
    }
  }
  CurveAnalysis analyze(const KneeParams& p = {}) const { return analyze_curve({load, rps, {}, e2el_ms}, p); }
};

double load_of(const CurveAnalysis& a, const std::vector<double>& load) { return load[*a.knee]; }

TEST(Knee, FixedCapacityAtAStageIsExact) {
  const FixedCapacity f({1, 2, 4, 8, 16, 32}, 8, 55);
  const auto a = f.analyze();
  ASSERT_TRUE(a.knee.has_value()) << a.knee_reason;
  EXPECT_EQ(load_of(a, f.load), 8);
  EXPECT_EQ(a.knee_reason, KneeReason::at_stage);
  EXPECT_EQ(a.knee_lo, std::optional<double>(8));
  EXPECT_EQ(a.knee_hi, std::optional<double>(8));
  EXPECT_EQ(a.knee_estimate, std::optional<double>(8));
  EXPECT_EQ(a.estimate_method, KneeEstimate::knee_stage);
  EXPECT_NEAR(a.entering_elasticity, 1.0, 1e-12);
  EXPECT_NEAR(a.later_elasticity, 0.0, 1e-12);
  ASSERT_EQ(a.regions.size(), 6u);
  EXPECT_EQ(a.regions[0].reason, RegionReason::first_stage);
  for (std::size_t i : {1u, 2u}) {
    EXPECT_EQ(a.regions[i].region, Region::linear);
    EXPECT_EQ(a.regions[i].reason, RegionReason::scaling);
    EXPECT_NEAR(a.regions[i].elasticity, 1.0, 1e-12);
  }
  EXPECT_EQ(a.regions[3].region, Region::knee);
  // Past the slots: flat throughput, latency doubling with each doubling of load = queueing.
  for (std::size_t i : {4u, 5u}) {
    EXPECT_EQ(a.regions[i].region, Region::saturated);
    EXPECT_EQ(a.regions[i].reason, RegionReason::queueing);
    EXPECT_NEAR(a.regions[i].e2el_ms / a.regions[i].knee_e2el_ms, f.load[i] / 8, 1e-12);
  }
}

TEST(Knee, FixedCapacityBetweenStagesIsABracketWithTheCapacityAsEstimate) {
  const FixedCapacity f({1, 2, 4, 8, 16, 32}, 12, 55);
  const auto a = f.analyze();
  ASSERT_TRUE(a.knee.has_value()) << a.knee_reason;
  EXPECT_EQ(a.knee_reason, KneeReason::inside_segment);
  EXPECT_EQ(load_of(a, f.load), 16);  // the lowest stage on the plateau
  EXPECT_EQ(a.knee_lo, std::optional<double>(8));
  EXPECT_EQ(a.knee_hi, std::optional<double>(16));
  EXPECT_NEAR(a.entering_elasticity, std::log(12.0 / 8) / std::log(2.0), 1e-12);
  // 8 arrived fully elastic (e = 1): X_plateau x R(8) = 12 / 55 ms x 55 ms = 12 slots.
  EXPECT_EQ(a.estimate_method, KneeEstimate::interpolated);
  ASSERT_TRUE(a.knee_estimate.has_value());
  EXPECT_NEAR(*a.knee_estimate, 12, 1e-9);
  EXPECT_EQ(a.regions[3].region, Region::linear);  // 8: still scaling
  EXPECT_EQ(a.regions[4].region, Region::knee);
  EXPECT_EQ(a.regions[5].reason, RegionReason::queueing);
}

TEST(Knee, IrregularFineStepsFindTheCapacity) {
  const FixedCapacity f({10, 12, 14, 16, 18, 20}, 15, 40);
  const auto a = f.analyze();
  ASSERT_TRUE(a.knee.has_value()) << a.knee_reason;
  EXPECT_EQ(a.knee_lo, std::optional<double>(14));
  EXPECT_EQ(a.knee_hi, std::optional<double>(16));
  ASSERT_TRUE(a.knee_estimate.has_value());
  EXPECT_NEAR(*a.knee_estimate, 15, 1e-9);
}

TEST(Knee, ConcaveBatchingCurvesLandOnTheBatchLimit) {
  // Measured on `sim --cost engine --model-preset llama-3-8b --gpu-preset h100 --time-scale 10`
  // (64-token prompts, 32-token outputs, 200 prompts per stage). Elasticity falls gradually from 1
  // as batching slows every step; the old slope-through-the-origin rule put the --max-num-seqs 64
  // knee at 32.
  const std::vector<double> c{1, 2, 4, 8, 16, 32, 64, 128, 256};
  const auto s64 = run(c, {41.1, 80.1, 157.0, 302.3, 541.8, 889.7, 1300.0, 1344.4, 1342.7});
  ASSERT_TRUE(s64.knee.has_value()) << s64.knee_reason;
  EXPECT_EQ(load_of(s64, c), 64);
  EXPECT_EQ(s64.knee_reason, KneeReason::inside_segment);
  EXPECT_EQ(s64.knee_lo, std::optional<double>(32));
  // Extended from 32 with the elasticity it arrived with (0.715): 32 x (1344.4 / 889.7)^(1 / 0.715).
  const double e = std::log(889.7 / 541.8) / std::log(2.0);
  EXPECT_NEAR(*s64.knee_estimate, 32 * std::pow(1344.4 / 889.7, 1 / e), 1e-9);
  EXPECT_GT(*s64.knee_estimate, 48);
  for (std::size_t i : {7u, 8u}) EXPECT_EQ(s64.regions[i].region, Region::saturated);
  // --max-num-seqs 16: the capacity ends inside the 8 -> 16 step.
  const auto s16 = run(c, {40.9, 80.0, 156.4, 299.7, 540.1, 556.8, 552.6, 554.3, 554.1});
  ASSERT_TRUE(s16.knee.has_value()) << s16.knee_reason;
  EXPECT_EQ(load_of(s16, c), 16);
  EXPECT_EQ(s16.knee_lo, std::optional<double>(8));
  EXPECT_GT(*s16.knee_estimate, 14);
}

TEST(Knee, PrefillBoundConcaveCurveIsNotCutAtTheFirstBend) {
  // Measured with 512-token prompts (--max-num-seqs 64): prefill compute bends the curve from c = 2;
  // the old rule said knee 4 while throughput more than doubled after it. Past 32 it gains 8.5 % for
  // 8x the load (e <= 0.12): 16 -> 32 still gained e = 0.22, so capacity ends inside that step.
  const std::vector<double> c{1, 2, 4, 8, 16, 32, 64, 128, 256};
  const auto a = run(c, {69.46, 121.59, 195.21, 279.75, 350.0, 406.35, 441.38, 443.51, 443.55});
  ASSERT_TRUE(a.knee.has_value()) << a.knee_reason;
  EXPECT_EQ(load_of(a, c), 32);
  EXPECT_EQ(a.knee_lo, std::optional<double>(16));
  EXPECT_NEAR(a.later_elasticity, std::log(441.38 / 406.35) / std::log(2.0), 1e-12);
  EXPECT_GE(*a.knee_estimate, 16);
  EXPECT_LE(*a.knee_estimate, 32);
}

TEST(Knee, NoisyDipsAndSmallSpikesDoNotMoveIt) {
  const std::vector<double> c{1, 2, 4, 8, 16, 32, 64};
  // A dip after the knee, then recovery: 32 is below the band but before the peak, so not overload.
  const auto dip = run(c, {2, 4, 8, 16, 32, 29, 33});
  EXPECT_EQ(dip.knee, std::optional<std::size_t>(4));
  EXPECT_EQ(dip.knee_reason, KneeReason::at_stage);
  EXPECT_EQ(dip.regions[5].region, Region::saturated);
  // A spike inside the band.
  const auto spike = run(c, {2.1, 3.8, 7.0, 17.0, 32.0, 33.5, 32.4});
  EXPECT_EQ(spike.knee, std::optional<std::size_t>(4));
  // A dip before the knee does not make a knee.
  const auto early = run(c, {2, 4, 3.5, 16, 32, 32.5, 32.2});
  EXPECT_EQ(early.knee, std::optional<std::size_t>(4));
  EXPECT_EQ(early.regions[2].region, Region::linear);
  EXPECT_EQ(early.regions[2].reason, RegionReason::dip);
}

TEST(Knee, FallingThroughputPastThePeakIsOverload) {
  const auto a = run({1, 2, 4, 8, 16, 32, 64}, {4, 8, 16, 30, 31, 24, 18});
  ASSERT_TRUE(a.knee.has_value());
  EXPECT_EQ(*a.knee, 3u);  // 30 is within 10 % of the 31 peak
  EXPECT_EQ(*a.peak, 4u);
  EXPECT_EQ(a.regions[4].region, Region::saturated);
  EXPECT_EQ(a.regions[4].reason, RegionReason::flat);  // no latency given
  for (std::size_t i : {5u, 6u}) {
    EXPECT_EQ(a.regions[i].region, Region::overload);
    EXPECT_EQ(a.regions[i].reason, RegionReason::throughput_drop);
  }
  EXPECT_NEAR(1 - a.regions[5].throughput / a.regions[5].peak_throughput, 0.23, 0.005);
}

TEST(Knee, RateSweepAgainstAKnownCapacity) {
  // Open loop against 4 slots of 55 ms: capacity 4 / 0.055 = 72.7 req/s; achieved X tracks the
  // offered rate until then.
  const double capacity = 4 / 0.055;
  const std::vector<double> rate{10, 20, 40, 80, 160};
  std::vector<double> x;
  for (double r : rate) x.push_back(std::min(r, capacity));
  KneeParams p;
  p.open_loop = true;
  const auto a = analyze_curve({rate, x, {}}, p);
  ASSERT_TRUE(a.knee.has_value()) << a.knee_reason;
  EXPECT_EQ(a.knee_reason, KneeReason::inside_segment);
  EXPECT_EQ(a.knee_lo, std::optional<double>(40));
  EXPECT_EQ(a.knee_hi, std::optional<double>(80));
  EXPECT_EQ(a.estimate_method, KneeEstimate::plateau_rate);
  EXPECT_NEAR(*a.knee_estimate, capacity, 1e-9);
}

TEST(Knee, RateSweepWithUnlimitedStageMeasuredOnTheEngine) {
  // `sim --cost engine --max-num-seqs 8` at 10, 20, 40, 80 req/s and inf: 80 achieves 55 of 80.
  const std::vector<double> x{10, 20, 40, 80, kInf}, y{9.71, 18.82, 35.52, 55.13, 57.87};
  KneeParams p;
  p.open_loop = true;
  const auto a = analyze_curve({x, y, {}}, p);
  ASSERT_TRUE(a.knee.has_value()) << a.knee_reason;
  EXPECT_EQ(a.knee_lo, std::optional<double>(40));
  EXPECT_EQ(a.knee_hi, std::optional<double>(80));
  EXPECT_NEAR(*a.knee_estimate, 57.87, 1e-9);
  EXPECT_EQ(a.regions[4].region, Region::saturated);
  EXPECT_TRUE(std::isnan(a.regions[4].elasticity));  // no finite load to take a log of
}

TEST(Knee, RateSweepAllAboveCapacity) {
  KneeParams p;
  p.open_loop = true;
  const auto a = analyze_curve({std::vector<double>{100, 200, 400}, std::vector<double>{50, 50.5, 49.8}, {}}, p);
  EXPECT_EQ(a.knee, std::optional<std::size_t>(0));
  EXPECT_EQ(a.knee_reason, KneeReason::at_or_below_lowest);
  EXPECT_EQ(a.knee_lo, std::optional<double>(0));
  EXPECT_EQ(a.knee_hi, std::optional<double>(100));
  EXPECT_NEAR(*a.knee_estimate, 50.5, 1e-9);
}

TEST(Knee, NoKneeWithinTestedRange) {
  auto a = run({1, 2, 4, 8}, {3, 6, 12, 24});
  EXPECT_FALSE(a.knee.has_value());
  EXPECT_EQ(a.knee_reason, KneeReason::none_in_range);
  EXPECT_NEAR(a.entering_elasticity, 1.0, 1e-12);
  for (const auto& r : a.regions) EXPECT_EQ(r.region, Region::linear);
  EXPECT_FALSE(run({1, 2, 4, 8}, {3, 6, 12, 20}).knee.has_value());  // e = 0.74 into the last stage
}

TEST(Knee, LastStageIsTheKneeOnlyWhenTheStepIntoItGainedNothing) {
  EXPECT_EQ(run({1, 2, 4, 8}, {3, 6, 12, 12}).knee, std::optional<std::size_t>(2));
  // 12 is 11 % below 13.5, but 4 -> 8 gained only e = 0.17: the plateau is reached inside that step.
  const auto a = run({1, 2, 4, 8}, {3, 6, 12, 13.5});
  EXPECT_EQ(a.knee, std::optional<std::size_t>(3));
  EXPECT_EQ(a.knee_lo, std::optional<double>(4));
  EXPECT_EQ(a.knee_reason, KneeReason::inside_segment);
}

TEST(Knee, UnlimitedRateStageConfirmsThePlateau) {
  auto a = run({1, 2, 4, kInf}, {1, 2, 4, 4.1});
  EXPECT_EQ(a.knee, std::optional<std::size_t>(2));
  EXPECT_EQ(a.knee_reason, KneeReason::at_stage);
  // An unlimited stage far above the knee's throughput says it was not the plateau.
  EXPECT_FALSE(run({1, 2, 4, kInf}, {1, 2, 4, 8}).knee.has_value());
}

TEST(Knee, MostlyFailedStagesAreNeverUsed) {
  const std::vector<double> c{1, 2, 4, 8, 16}, x{2, 4, 8, 16, 16};
  EXPECT_EQ(run(c, x).knee, std::optional<std::size_t>(3));  // the flat 16 makes 8 the knee
  // ...but if 16 mostly failed, its throughput says nothing about capacity.
  const std::vector<double> failed{0, 0, 0, 0, 0.8};
  const auto a = analyze_curve({c, x, {}, {}, failed});
  EXPECT_FALSE(a.knee.has_value());
  EXPECT_EQ(a.knee_reason, KneeReason::none_in_range);
  EXPECT_EQ(a.unusable_stages, 1u);
  EXPECT_EQ(a.regions[4].region, Region::overload);
  EXPECT_EQ(a.regions[4].reason, RegionReason::mostly_failed);
  // Everything failed: nothing to judge.
  const std::vector<double> all{1, 1};
  const auto none = analyze_curve({std::vector<double>{1, 2}, std::vector<double>{0, 0}, {}, {}, all});
  EXPECT_EQ(none.knee_reason, KneeReason::too_few_usable);
}

TEST(Knee, FailuresPastTheKneeAreOverload) {
  const FixedCapacity f({1, 2, 4, 8, 16, 32}, 8, 55);
  const std::vector<double> failed{0, 0, 0, 0, 0.01, 0.2};
  const auto a = analyze_curve({f.load, f.rps, {}, f.e2el_ms, failed});
  EXPECT_EQ(load_of(a, f.load), 8);
  EXPECT_EQ(a.regions[4].reason, RegionReason::queueing);  // 1 % is below the 5 % bar
  EXPECT_EQ(a.regions[5].region, Region::overload);
  EXPECT_EQ(a.regions[5].reason, RegionReason::failures);
}

TEST(Knee, ZeroThroughputHasNoKnee) {
  auto a = run({1, 2}, {0, 0});
  EXPECT_FALSE(a.knee.has_value());
  EXPECT_EQ(a.knee_reason, KneeReason::no_throughput);
  EXPECT_EQ(a.regions.size(), 2u);
}

TEST(Knee, EmptyCurve) {
  auto a = run({}, {});
  EXPECT_FALSE(a.knee.has_value());
  EXPECT_TRUE(a.regions.empty());
}

TEST(Knee, SaturationElasticityIsAParameter) {
  // 8 -> 16 gains e = 0.32: saturated at 0.5, still scaling at the default 0.2.
  const std::vector<double> c{1, 2, 4, 8, 16}, x{2, 4, 8, 16, 20};
  KneeParams loose;
  loose.saturation_elasticity = 0.5;
  loose.plateau_tolerance = 0.25;
  EXPECT_EQ(analyze_curve({c, x, {}}, loose).knee, std::optional<std::size_t>(3));
  EXPECT_FALSE(analyze_curve({c, x, {}}).knee.has_value());
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
  auto rate = run({1, 4, kInf}, {1, 4, 5}, {10, 21, 100});
  EXPECT_EQ(rate.ttft_rise, std::optional<std::size_t>(2));
}

}  // namespace
}  // namespace sb::analyze
