#include "analyze/compare.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "analyze/analysis.hpp"
#include "analyze/fixtures.hpp"
#include "core/error.hpp"

namespace sb::analyze {
namespace {

struct Pair {
  results::Run base, tuned;
  RunAnalysis ba, ta;
  Comparison compare(std::vector<std::string> metrics = default_compare_metrics()) const {
    return compare_runs({base, tuned, ba.curve, ta.curve, std::move(metrics), {}});
  }
};

Pair load(const char* base, const char* tuned) {
  Pair p{test::read_fixture(base), test::read_fixture(tuned), {}, {}};
  p.ba = analyze_run(p.base, {});
  p.ta = analyze_run(p.tuned, {});
  return p;
}

const MetricDelta& metric(const StageComparison& sc, const std::string& name) {
  for (const auto& d : sc.deltas)
    if (d.metric == name) return d;
  throw std::runtime_error("no metric " + name);
}

TEST(Compare, BaselineVsTunedSignsAndSignificance) {
  const auto p = load("baseline.json", "tuned.json");
  const auto c = p.compare();
  ASSERT_EQ(c.stages.size(), 3u);
  EXPECT_TRUE(c.unmatched_loads.empty());
  EXPECT_TRUE(c.equivalence.empty());
  for (const auto& sc : c.stages) {
    const auto& ttft = metric(sc, "ttft_p99");
    EXPECT_LT(ttft.rel_change, 0) << sc.load_value;
    EXPECT_EQ(ttft.significance, Significance::significant);
    EXPECT_EQ(ttft.judgement, Judgement::bootstrap);
    EXPECT_LT(ttft.ci->high, 0);
    EXPECT_GT(metric(sc, "request_throughput").rel_change, 0);
    const auto& tpot = metric(sc, "tpot_p50");  // identical samples in both runs
    EXPECT_DOUBLE_EQ(tpot.rel_change, 0);
    EXPECT_EQ(tpot.significance, Significance::not_significant);
    EXPECT_EQ(metric(sc, "itl_p99").significance, Significance::cannot_judge);
  }
  // At concurrency 32: TTFT mean 800 -> 400 ms, E2EL 3340 -> 2940 ms: RPS ~ +13.6 % (Little's law).
  const auto& rps32 = metric(c.stages[2], "request_throughput");
  EXPECT_NEAR(rps32.rel_change, 0.136, 0.02);
  EXPECT_EQ(rps32.significance, Significance::significant);
  EXPECT_EQ(rps32.judgement, Judgement::bootstrap_littles_law);
  EXPECT_NEAR(metric(c.stages[2], "ttft_p50").rel_change, -0.5, 0.03);
}

TEST(Compare, NoPerRequestDataCannotBeJudged) {
  const auto p = load("knee_c16.json", "noisy.json");
  const auto c = p.compare();
  ASSERT_FALSE(c.stages.empty());
  for (const auto& d : c.stages[0].deltas) {
    EXPECT_EQ(d.significance, Significance::cannot_judge);
    EXPECT_EQ(d.judgement, Judgement::no_request_records);
  }
  EXPECT_EQ(c.unmatched_loads, std::vector<double>{128});  // noisy stops at 64
  EXPECT_EQ(*c.baseline_knee_load, 16);
  EXPECT_EQ(*c.tuned_knee_load, 16);
}

TEST(Compare, WorkloadNotEquivalent) {
  auto p = load("baseline.json", "tuned.json");
  p.tuned.model = "other-model";
  p.tuned.stages[0].output_len_mean = 64;  // baseline delivered 128
  p.tuned.stages[1].num_prompts = 100;
  const auto c = p.compare();
  ASSERT_EQ(c.equivalence.size(), 3u);
  using Kind = WorkloadDifference::Kind;
  EXPECT_EQ(c.equivalence[0].kind, Kind::model);
  EXPECT_EQ(c.equivalence[0].tuned_text, "other-model");
  EXPECT_EQ(c.equivalence[1].kind, Kind::output_length);
  EXPECT_EQ(c.equivalence[1].tuned, 64);
  EXPECT_EQ(c.equivalence[2].kind, Kind::request_count);
  EXPECT_EQ(c.equivalence[2].tuned, 100);
}

TEST(Compare, CountsOfStagesRunForStageSecondsAreResultsNotWorkload) {
  auto p = load("baseline.json", "tuned.json");
  p.tuned.stages[1].num_prompts = 100;  // what a faster configuration completed in the same seconds
  p.base.stages[1].duration_bounded = true;
  p.tuned.stages[1].duration_bounded = true;
  EXPECT_TRUE(p.compare().equivalence.empty());
  // One side bounded by a count is a different workload again.
  p.base.stages[1].duration_bounded = false;
  const auto c = p.compare();
  ASSERT_EQ(c.equivalence.size(), 1u);
  EXPECT_EQ(c.equivalence[0].kind, WorkloadDifference::Kind::request_count);
}

TEST(Compare, WorkloadDifferenceAtSeveralStagesIsSaidOnce) {
  auto p = load("baseline.json", "tuned.json");
  for (auto& s : p.tuned.stages) s.input_len_mean = 2 * s.input_len_mean.value_or(0);
  p.tuned.stages[1].output_len_mean = 64;
  const auto c = p.compare();
  ASSERT_EQ(c.equivalence.size(), 2u);
  std::vector<double> loads;
  for (const auto& s : c.stages) loads.push_back(s.load_value);
  EXPECT_EQ(c.equivalence[0].kind, WorkloadDifference::Kind::input_length);
  EXPECT_EQ(c.equivalence[0].loads, loads);  // said once, with every load
  EXPECT_EQ(c.equivalence[0].baseline, 512);
  EXPECT_EQ(c.equivalence[0].tuned, 1024);
  EXPECT_EQ(c.equivalence[1].kind, WorkloadDifference::Kind::output_length);
  EXPECT_EQ(c.equivalence[1].loads, std::vector<double>{c.stages[1].load_value});
}

// Hints are read at the most loaded matched stage.
Comparison with_changes(double rps_rel, double ttft_rel, double tpot_rel) {
  auto p = load("knee_c16.json", "knee_c16.json");
  auto& last = p.tuned.stages.back();
  last.request_throughput *= 1 + rps_rel;
  for (auto& [pct, v] : last.stats(results::Metric::ttft)->percentiles)
    if (pct == 99) v *= 1 + ttft_rel;
  for (auto& [pct, v] : last.stats(results::Metric::tpot)->percentiles)
    if (pct == 50) v *= 1 + tpot_rel;
  return p.compare();
}

TEST(Compare, Hints) {
  EXPECT_EQ(with_changes(0.28, 0.0, 0.0).hints, std::vector<Hint>{Hint::throughput_without_queueing});
  EXPECT_EQ(with_changes(0.01, -0.44, 0.0).hints, std::vector<Hint>{Hint::scheduling_not_compute});
  EXPECT_EQ(with_changes(0.0, 0.0, 0.3).hints, std::vector<Hint>{Hint::decode_bound});
  EXPECT_TRUE(with_changes(0.3, -0.3, 0.0).hints.empty());  // both improved: nothing to hint
}

TEST(Compare, VllmRunsCompareTooAndTheirDetailArraysAreUsed) {
  auto runs = results::read_runs({test::analyze_fixture("vllm/vllm-infqps-concurrency16-llama-3-8b-20250101-120000.json")});
  ASSERT_EQ(runs.size(), 1u);
  auto base = runs[0], tuned = runs[0];
  const auto a = analyze_run(base, {});
  const auto c = compare_runs({base, tuned, a.curve, a.curve, {"ttft_p50", "itl_p99"}, {}});
  ASSERT_EQ(c.stages.size(), 1u);
  EXPECT_EQ(c.stages[0].deltas[0].significance, Significance::not_significant);
  EXPECT_EQ(c.stages[0].deltas[1].significance, Significance::cannot_judge);
}

TEST(Compare, HeadlineIsAtTheBaselineKneeOrTheNamedLoad) {
  const auto p = load("sim/base.json", "sim/tuned.json");  // server admits 8 vs 16: knees 8 and 16
  const auto c = p.compare();
  ASSERT_TRUE(c.headline);
  EXPECT_EQ(c.headline->basis, HeadlineBasis::baseline_knee);
  EXPECT_EQ(c.stages[c.headline->stage].load_value, 8);
  ASSERT_EQ(c.headline->deltas.size(), headline_metrics().size());
  for (std::size_t i = 0; i < headline_metrics().size(); ++i) EXPECT_EQ(c.headline->deltas[i].metric, headline_metrics()[i]);
  EXPECT_TRUE(c.headline->kernels.empty());  // no traces given
  CompareInput in{p.base, p.tuned, p.ba.curve, p.ta.curve, {"ttft_p50"}, {}};
  in.headline_load = 32;
  const auto at = compare_runs(in);
  EXPECT_EQ(at.headline->basis, HeadlineBasis::named_load);
  EXPECT_EQ(at.stages[at.headline->stage].load_value, 32);
  EXPECT_EQ(at.headline->deltas.size(), 4u);  // headline rows even when --metrics names others
  in.headline_load = 5;
  try {
    compare_runs(in);
    FAIL() << "accepted --at 5";
  } catch (const UserError& e) {
    EXPECT_EQ(std::string(e.what()), "--at 5: not a stage of both runs (matched loads: 1, 2, 4, 8, 16, 32)");
  }
}

TEST(Compare, HeadlineFallsBackToTheTunedKneeThenTheMostLoadedStage) {
  auto p = load("sim/base.json", "sim/tuned.json");
  p.ba.curve.knee.reset();
  auto c = p.compare();
  EXPECT_EQ(c.headline->basis, HeadlineBasis::tuned_knee);
  EXPECT_EQ(c.stages[c.headline->stage].load_value, 16);
  p.ta.curve.knee.reset();
  c = p.compare();
  EXPECT_EQ(c.headline->basis, HeadlineBasis::most_loaded);
  EXPECT_EQ(c.stages[c.headline->stage].load_value, 32);
}

TEST(Compare, TopKernelsByBaselineTimeWithWelchSignificance) {
  const auto p = load("sim/base.json", "sim/tuned.json");
  // gemm: 10000 calls each, mean 100 -> 90 us, sd 10 us: SE = sqrt(2 * 100^2 / 10^4) ns-scaled
  // = 0.1414 us, so the CI is -10 +/- 0.277 us. attn: 100 -> 101 us, sd 50 us, 100 calls:
  // SE 7.07 us, CI -13..+15 us, not significant. copy only in the baseline; tiny falls outside top 3.
  const std::vector<KernelSummary> base{{"gemm", 10000, 100e3, 10e3, 1e9},
                                        {"attn", 100, 100e3, 50e3, 1e7},
                                        {"copy", 50, 10e3, 1e3, 5e5},
                                        {"tiny", 10, 1e3, 1e2, 1e4}};
  const std::vector<KernelSummary> tuned{{"attn", 100, 101e3, 50e3, 1.01e7}, {"gemm", 10000, 90e3, 10e3, 9e8}};
  CompareInput in{p.base, p.tuned, p.ba.curve, p.ta.curve, {"ttft_p50"}, {}};
  in.baseline_kernels = &base;
  in.tuned_kernels = &tuned;
  in.top_kernels = 3;
  const auto c = compare_runs(in);
  const auto& k = c.headline->kernels;
  ASSERT_EQ(k.size(), 3u);
  EXPECT_EQ(k[0].name, "gemm");
  EXPECT_NEAR(k[0].rel_change, -0.10, 1e-12);
  EXPECT_EQ(k[0].significance, Significance::significant);
  EXPECT_NEAR(k[0].ci->low, -10e3 - 1.959964 * std::sqrt(2e4), 1e-6);
  EXPECT_EQ(k[1].name, "attn");
  EXPECT_EQ(k[1].significance, Significance::not_significant);
  EXPECT_EQ(k[2].name, "copy");
  EXPECT_TRUE(std::isnan(k[2].tuned_mean_ns));
  EXPECT_EQ(k[2].significance, Significance::cannot_judge);
}

}  // namespace
}  // namespace sb::analyze
