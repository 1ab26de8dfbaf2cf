// Known offsets recovered from the load timeline alone: synthetic traces built from stage windows
// with a chosen offset, then handed to the estimate without it.
#include "trace/offset_estimate.hpp"

#include <gtest/gtest.h>

#include <cstdlib>

namespace sb::trace {
namespace {

constexpr std::int64_t kMs = 1'000'000;
constexpr std::int64_t kSweepStartNs = 1'764'000'000'000'000'000;  // Unix ns
constexpr std::int64_t kTrueOffsetNs = 1'763'000'123'456'789'000;  // Unix ns - trace ns

StageWindow stage_at(int index, double load, std::int64_t start_ms, std::int64_t end_ms) {
  return {index, "c=" + std::to_string(static_cast<int>(load)), load, kSweepStartNs + start_ms * kMs,
          kSweepStartNs + end_ms * kMs};
}

// Kernels of `busy_ms` every `period_ms` from `lead_ms` after the window opens to its end, on the trace clock.
void fill_stage(const StageWindow& w, std::int64_t busy_ms, std::int64_t period_ms, std::int64_t lead_ms,
                std::vector<KernelEvent>& out) {
  for (std::int64_t t = w.start_unix_ns + lead_ms * kMs; t + busy_ms * kMs <= w.end_unix_ns; t += period_ms * kMs) {
    KernelEvent e;
    e.name = "gemm";
    e.start_ns = t - kTrueOffsetNs;
    e.end_ns = t + busy_ms * kMs - kTrueOffsetNs;
    out.push_back(e);
  }
}

// Two stages at different busy levels, a short idle gap between them (the pipeline's drain).
TEST(EstimateOffset, RecoversAKnownOffsetFromStagesAndGaps) {
  const std::vector<StageWindow> stages{stage_at(0, 1, 0, 1000), stage_at(1, 4, 1050, 2050)};
  std::vector<KernelEvent> events;
  fill_stage(stages[0], 2, 5, 1, events);  // 40 % busy
  fill_stage(stages[1], 4, 5, 1, events);  // 80 % busy
  const OffsetEstimate e = estimate_offset(events, stages);
  ASSERT_EQ(e.verdict, EstimateVerdict::confident) << e.inside_fraction << " " << e.margin;
  EXPECT_LE(std::llabs(e.offset_ns - kTrueOffsetNs), 2 * kMs) << e.offset_ns - kTrueOffsetNs;
  EXPECT_GT(e.inside_fraction, 0.99);
  EXPECT_GT(e.margin, 0.15);
  EXPECT_EQ(estimate_offset(events, {stages[1], stages[0]}).offset_ns, e.offset_ns);  // stages in any order
  EXPECT_EQ(e.bin_ns, kMs);
  EXPECT_LE(e.spread_ns, 20 * kMs);
}

// No gap between the stages and the trace ends with the sweep: a shift by one whole stage (the trace
// stopped early, its first stage before the sweep) loses only the lowest stage's small share, so the
// estimate is refused rather than trusted (docs/kernels.md: the estimate needs the idle gaps).
TEST(EstimateOffset, LevelChangesAloneWithoutGapsAreAmbiguous) {
  const std::vector<StageWindow> stages{stage_at(0, 1, 0, 800), stage_at(1, 8, 800, 1600),
                                        stage_at(2, 16, 1600, 2400)};
  std::vector<KernelEvent> events;
  fill_stage(stages[0], 1, 10, 2, events);  // 10 %
  fill_stage(stages[1], 6, 10, 0, events);  // 60 %
  fill_stage(stages[2], 9, 10, 0, events);  // 90 %
  const OffsetEstimate gapless = estimate_offset(events, stages);
  EXPECT_EQ(gapless.verdict, EstimateVerdict::ambiguous) << gapless.margin;
  EXPECT_EQ(gapless.runner_up_offset_ns - kTrueOffsetNs, -800 * kMs);
}

// A trace covering only the middle of one long, uniformly busy stage fits anywhere in it: one wide
// plateau of equal scores, no separate peak.
TEST(EstimateOffset, UniformActivityInsideOneLongStageIsAmbiguous) {
  const std::vector<StageWindow> stages{stage_at(0, 8, 0, 10'000)};
  std::vector<KernelEvent> events;
  fill_stage(stage_at(0, 8, 4000, 5000), 3, 5, 0, events);
  const OffsetEstimate e = estimate_offset(events, stages);
  EXPECT_EQ(e.verdict, EstimateVerdict::ambiguous) << e.margin;
  EXPECT_GT(e.spread_ns, 4000 * kMs);  // it fits anywhere its second lies wholly inside the stage
}

// Four saturated stages alike in length, level and gaps; the trace covers two of them: shifted by one
// stage it fits exactly as well, a separate peak of the same height.
TEST(EstimateOffset, RepeatingStagesGiveASecondPeak) {
  std::vector<StageWindow> stages;
  for (int i = 0; i < 4; ++i) stages.push_back(stage_at(i, 8 << i, i * 600, i * 600 + 500));
  std::vector<KernelEvent> events;
  fill_stage(stages[1], 4, 5, 0, events);
  fill_stage(stages[2], 4, 5, 0, events);
  const OffsetEstimate e = estimate_offset(events, stages);
  EXPECT_EQ(e.verdict, EstimateVerdict::ambiguous);
  EXPECT_LT(e.margin, 0.02);
  EXPECT_NE(e.runner_up_offset_ns, e.offset_ns);
  EXPECT_EQ(std::llabs(e.runner_up_offset_ns - e.offset_ns) % (600 * kMs), 0);
}

// Ten seconds of steady activity against a one-second sweep: most of it can never be inside.
TEST(EstimateOffset, ActivityThatOutlastsTheSweepIsAWeakFit) {
  const std::vector<StageWindow> stages{stage_at(0, 1, 0, 500), stage_at(1, 2, 520, 1000)};
  std::vector<KernelEvent> events;
  fill_stage(stage_at(0, 1, -5000, 5000), 2, 4, 0, events);
  const OffsetEstimate e = estimate_offset(events, stages);
  EXPECT_EQ(e.verdict, EstimateVerdict::weak_fit) << e.inside_fraction;
  EXPECT_LT(e.inside_fraction, 0.2);
}

TEST(EstimateOffset, NothingToLineUpIsNoOverlap) {
  EXPECT_EQ(estimate_offset({}, {stage_at(0, 1, 0, 100)}).verdict, EstimateVerdict::no_overlap);
  std::vector<KernelEvent> events;
  fill_stage(stage_at(0, 1, 0, 100), 2, 5, 0, events);
  EXPECT_EQ(estimate_offset(events, {}).verdict, EstimateVerdict::no_overlap);
}

// A long trace gets coarser bins instead of unbounded memory; the estimate keeps that resolution.
TEST(EstimateOffset, CoarserBinsBeyondMaxBins) {
  const std::vector<StageWindow> stages{stage_at(0, 1, 0, 1000), stage_at(1, 4, 1100, 2100)};
  std::vector<KernelEvent> events;
  fill_stage(stages[0], 2, 5, 1, events);
  fill_stage(stages[1], 4, 5, 1, events);
  OffsetEstimateParams p;
  p.max_bins = 200;  // 2.1 s of trace -> ~10.5 ms bins
  const OffsetEstimate e = estimate_offset(events, stages, p);
  ASSERT_TRUE(e.confident());
  EXPECT_GT(e.bin_ns, 10 * kMs);
  EXPECT_LE(std::llabs(e.offset_ns - kTrueOffsetNs), 2 * e.bin_ns);
}

}  // namespace
}  // namespace sb::trace
