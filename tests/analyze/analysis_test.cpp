// Acceptance on real sweeps of `servebench run` against `servebench sim` (fixed cost, server slot
// limit 8 for base, 16 for tuned; tests/data/analyze/sim/make_sim_sweeps.sh): the knee must land on
// the slot limit, compare must show the expected signs, and the CI gate must fail and pass correctly.
#include "analyze/analysis.hpp"

#include <gtest/gtest.h>

#include "analyze/compare.hpp"
#include "analyze/fixtures.hpp"
#include "analyze/gate.hpp"

namespace sb::analyze {
namespace {

struct SimPair {
  std::vector<results::Run> runs{test::read_fixture("sim/base.json"), test::read_fixture("sim/tuned.json")};
  std::vector<RunAnalysis> as = analyze_runs(runs, {});
};

const MetricDelta& find(const StageComparison& sc, const std::string& m) {
  for (const auto& d : sc.deltas)
    if (d.metric == m) return d;
  throw std::runtime_error(m);
}

TEST(Analysis, KneeLandsOnTheSimulatorSlotLimit) {
  SimPair p;
  ASSERT_EQ(p.runs[0].stages.size(), 6u);  // concurrency 1 2 4 8 16 32
  ASSERT_TRUE(p.as[0].curve.knee.has_value());
  EXPECT_DOUBLE_EQ(p.runs[0].stages[*p.as[0].curve.knee].load_value, 8);
  ASSERT_TRUE(p.as[1].curve.knee.has_value());
  EXPECT_DOUBLE_EQ(p.runs[1].stages[*p.as[1].curve.knee].load_value, 16);
  EXPECT_EQ(p.as[0].curve.knee_reason, KneeReason::at_stage);
  EXPECT_EQ(p.as[0].curve.regions[3].region, Region::knee);
  // Past the 8 slots the sweep queues: flat throughput, growing latency.
  EXPECT_EQ(p.as[0].curve.regions[4].region, Region::saturated);
  EXPECT_EQ(p.as[0].curve.regions[4].reason, RegionReason::queueing);
  EXPECT_EQ(p.as[0].curve.regions[5].reason, RegionReason::queueing);
  EXPECT_EQ(p.runs[0].label, "base");  // unlabelled: named after the file
  EXPECT_EQ(p.runs[0].requests.size(), 6u * 64u);
}

TEST(Analysis, CompareSignsAndGateOnSimulatorSweeps) {
  SimPair p;
  const auto c = compare_runs({p.runs[0], p.runs[1], p.as[0].curve, p.as[1].curve, default_compare_metrics(), {}});
  ASSERT_EQ(c.stages.size(), 6u);
  EXPECT_TRUE(c.equivalence.empty());
  // Past base's slot limit, tuned doubles throughput and cuts queueing (TTFT).
  for (std::size_t s : {4u, 5u}) {
    EXPECT_GT(find(c.stages[s], "request_throughput").rel_change, 0.8);
    EXPECT_EQ(find(c.stages[s], "request_throughput").significance, Significance::significant);
    EXPECT_LT(find(c.stages[s], "ttft_p50").rel_change, -0.5);
    EXPECT_EQ(find(c.stages[s], "ttft_p50").significance, Significance::significant);
  }
  EXPECT_EQ(*c.baseline_knee_load, 8);
  EXPECT_EQ(*c.tuned_knee_load, 16);
  auto rule = [](const char* t) { return std::vector<GateRule>{parse_gate_rule(t)}; };
  EXPECT_TRUE(evaluate_gate(rule("request_throughput:-10%"), c).empty());
  EXPECT_TRUE(evaluate_gate(rule("ttft_p50@32:+10%"), c).empty());
  const auto swapped =
      compare_runs({p.runs[1], p.runs[0], p.as[1].curve, p.as[0].curve, default_compare_metrics(), {}});
  const auto v = evaluate_gate(rule("request_throughput:-10%"), swapped);
  ASSERT_EQ(v.size(), 2u);  // concurrency 16 and 32 lost ~half their throughput
  EXPECT_DOUBLE_EQ(v[0].load_value, 16);
  EXPECT_DOUBLE_EQ(v[1].load_value, 32);
}

}  // namespace
}  // namespace sb::analyze
