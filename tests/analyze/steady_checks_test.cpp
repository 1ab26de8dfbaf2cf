// Tests for src/analyze/steady_checks.cpp: each finding fires on numbers past its limit and stays
// quiet just inside it.
#include "analyze/steady_checks.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace sb::analyze {
namespace {

// A closed-loop c=8 stage of 10 s whose 9.5 s window held, was stable and obeyed Little's law.
StageSummary healthy_closed() {
  StageSummary s;
  s.load.max_concurrency = 8;
  s.sent = 1000;
  s.duration_s = 10;
  SteadyState st;
  st.window_start_s = 0.2;
  st.window_s = 9.5;
  st.held_fraction = 0.99;
  st.target_in_flight = 8;
  st.completed = 950;
  st.sub_min_completed = 200;
  st.throughput_spread = 0.05;
  st.ttft_spread = 0.05;
  st.littles_law_ratio = 1.01;
  s.steady = st;
  return s;
}

bool has_issue(const std::vector<SteadyFinding>& fs, SteadyIssue i) {
  return std::any_of(fs.begin(), fs.end(), [&](const SteadyFinding& f) { return f.issue == i; });
}

TEST(SteadyChecks, HealthyStageHasNoFinding) { EXPECT_TRUE(steady_findings(healthy_closed()).empty()); }

TEST(SteadyChecks, ShortWindowOfAPromptBoundStageIsDrainDominated) {
  StageSummary s = healthy_closed();
  s.steady->window_s = 5;  // half of the 10 s stage
  const auto fs = steady_findings(s);
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].issue, SteadyIssue::drain_dominated);
  EXPECT_DOUBLE_EQ(fs[0].value, 0.5);
  s.steady->duration_bounded = true;  // --stage-seconds already: nothing to suggest
  EXPECT_FALSE(has_issue(steady_findings(s), SteadyIssue::drain_dominated));
  s.steady->duration_bounded = false;
  s.steady->window_s = 8.1;  // 81 %: inside the limit
  EXPECT_FALSE(has_issue(steady_findings(s), SteadyIssue::drain_dominated));
}

TEST(SteadyChecks, HeldFractionBelowNinetyPercent) {
  StageSummary s = healthy_closed();
  s.steady->held_fraction = 0.85;
  EXPECT_TRUE(has_issue(steady_findings(s), SteadyIssue::not_held));
  s.steady->held_fraction = 0.91;
  EXPECT_FALSE(has_issue(steady_findings(s), SteadyIssue::not_held));
}

TEST(SteadyChecks, StabilityLimitWidensWithFewCompletions) {
  StageSummary s = healthy_closed();
  s.steady->sub_min_completed = 100;  // 3 / sqrt(100) = 0.30 > 0.20
  EXPECT_DOUBLE_EQ(spread_limit(SteadyLimits{}, 100), 0.30);
  s.steady->throughput_spread = 0.29;
  EXPECT_FALSE(has_issue(steady_findings(s), SteadyIssue::unstable_throughput));
  s.steady->throughput_spread = 0.35;
  s.steady->ttft_spread = 0.50;
  const auto fs = steady_findings(s);
  EXPECT_TRUE(has_issue(fs, SteadyIssue::unstable_throughput));
  EXPECT_TRUE(has_issue(fs, SteadyIssue::unstable_ttft));
  s.steady->sub_min_completed = 5;  // too few to judge at all
  EXPECT_FALSE(has_issue(steady_findings(s), SteadyIssue::unstable_ttft));
}

TEST(SteadyChecks, LittlesLawBeyondTenPercent) {
  StageSummary s = healthy_closed();
  s.steady->littles_law_ratio = 0.85;
  const auto fs = steady_findings(s);
  ASSERT_TRUE(has_issue(fs, SteadyIssue::littles_law));
  EXPECT_DOUBLE_EQ(fs.back().value, 0.85);
  s.steady->littles_law_ratio = 1.09;
  EXPECT_FALSE(has_issue(steady_findings(s), SteadyIssue::littles_law));
}

// A sub-window shorter than two request latencies counts completions in lumps (a closed loop's
// first latency has none): spreads and Little's law are not judged there; the same numbers over
// sub-windows four latencies long are.
TEST(SteadyChecks, WindowsShorterThanTwoLatenciesAreNotJudged) {
  StageSummary s = healthy_closed();
  s.steady->sub_request_throughput = {50, 100, 100, 100};  // 4 sub-windows of 9.5 / 4 = 2.375 s
  s.steady->throughput_spread = 0.57;
  s.steady->littles_law_ratio = 0.86;
  s.steady->e2el.mean_ms = 1500;  // 2.375 s < 2 x 1.5 s
  auto fs = steady_findings(s);
  EXPECT_FALSE(has_issue(fs, SteadyIssue::unstable_throughput));
  EXPECT_FALSE(has_issue(fs, SteadyIssue::littles_law));
  s.steady->e2el.mean_ms = 590;  // 2.375 s >= 2 x 0.59 s
  fs = steady_findings(s);
  EXPECT_TRUE(has_issue(fs, SteadyIssue::unstable_throughput));
  EXPECT_TRUE(has_issue(fs, SteadyIssue::littles_law));
}

TEST(SteadyChecks, OpenLoopShortfallIsDrainOnlyWhenTtftStayedFlat) {
  StageSummary s;
  s.load.request_rate = 32;
  s.sent = 200;
  s.duration_s = 9.7;
  SteadyState st;
  st.window_s = 6.2;
  st.completed = 190;
  st.sub_min_completed = 40;
  st.ttft_spread = 0.02;
  st.littles_law_ratio = 1;
  st.rate_fraction = 0.64;
  st.steady_rate_fraction = 0.8;
  s.steady = st;
  auto fs = steady_findings(s);
  EXPECT_TRUE(has_issue(fs, SteadyIssue::drain_dominated));
  EXPECT_FALSE(has_issue(fs, SteadyIssue::rate_not_held));  // a short window's rate is biased low
  s.steady->ttft_spread = 0.9;  // queueing: the server is past capacity, not a drain artefact
  fs = steady_findings(s);
  EXPECT_FALSE(has_issue(fs, SteadyIssue::drain_dominated));
  EXPECT_TRUE(has_issue(fs, SteadyIssue::unstable_ttft));
  s.steady->duration_bounded = true;
  EXPECT_TRUE(has_issue(steady_findings(s), SteadyIssue::rate_not_held));
}

TEST(SteadyChecks, NoWindowAndNoSteadyState) {
  StageSummary s = healthy_closed();
  s.steady->window_s = 0;
  const auto fs = steady_findings(s);
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].issue, SteadyIssue::no_window);
  s.steady.reset();
  EXPECT_TRUE(steady_findings(s).empty());
  EXPECT_STREQ(to_string(SteadyIssue::drain_dominated), "drain_dominated");
}

}  // namespace
}  // namespace sb::analyze
