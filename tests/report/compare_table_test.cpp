#include "report/compare_table.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "analyze/analysis.hpp"
#include "analyze/fixtures.hpp"
#include "analyze/gate.hpp"
#include "report/compare_gate_text.hpp"

namespace sb::analyze {
namespace {

struct ComparedFixtures {
  results::Run base, tuned;
  Comparison c;
};

ComparedFixtures compared(const char* base, const char* tuned, std::vector<std::string> metrics) {
  ComparedFixtures f{test::read_fixture(base), test::read_fixture(tuned), {}};
  const auto ba = analyze_run(f.base, {}), ta = analyze_run(f.tuned, {});
  f.c = compare_runs({f.base, f.tuned, ba.curve, ta.curve, std::move(metrics), {}});
  return f;
}

report::GateResult judged(const Comparison& c, std::vector<std::string> texts) {
  report::GateResult g;
  for (const auto& t : texts) g.rules.push_back(parse_gate_rule(t));
  g.verdicts = judge_gate(g.rules, c);
  g.violations = evaluate_gate(g.rules, c);
  return g;
}

TEST(CompareTable, GateSaysWhyEachStageTrippedOrNot) {
  // tuned.json -> baseline.json is a regression: TTFT p99 +33 % at concurrency 8, significant.
  const auto f = compared("tuned.json", "baseline.json", {"ttft_p99"});
  const auto g = judged(f.c, {"ttft_p99@8:+10%", "ttft_p99@8:+50%", "ttft_p99@8:+10%:+100000ms"});
  const std::string out = report::console_compare(f.base, f.tuned, f.c, g);
  EXPECT_NE(out.find("  ttft_p99@8:+10%\n          c=8  +32.9% ("), std::string::npos) << out;
  EXPECT_NE(out.find("): TRIPPED: significant (95% bootstrap CI of the ttft_p99 difference"), std::string::npos)
      << out;
  EXPECT_NE(out.find("within the limit (+50.0%)"), std::string::npos) << out;
  EXPECT_NE(out.find("over the limit but under the floor (1e+05 ms)"), std::string::npos) << out;
  EXPECT_NE(out.find("gate: FAILED at 1 of 3 rule-stages\n"), std::string::npos) << out;
}

TEST(CompareTable, WarningsComeBeforeAnyTable) {
  auto f = compared("baseline.json", "tuned.json", default_compare_metrics());
  f.tuned.model = "other-model";
  const auto ba = analyze_run(f.base, {}), ta = analyze_run(f.tuned, {});
  const auto c = compare_runs({f.base, f.tuned, ba.curve, ta.curve, default_compare_metrics(), {}});
  const std::string out = report::console_compare(f.base, f.tuned, c, {});
  const auto warning = out.find("warning: not comparable: model differs");
  ASSERT_NE(warning, std::string::npos) << out;
  EXPECT_LT(warning, out.find("headline at")) << out;
  EXPECT_LT(warning, out.find("change by concurrency")) << out;
}

TEST(CompareTable, HeadlineAtTheBaselineKneeThenAPivotByLoad) {
  // Live sim sweeps whose server admits 8 (base) and 16 (tuned) requests at once: baseline knee c=8.
  const auto f = compared("sim/base.json", "sim/tuned.json", default_compare_metrics());
  ASSERT_TRUE(f.c.headline);
  ASSERT_TRUE(f.c.baseline_knee_load);
  const std::string out = report::console_compare(f.base, f.tuned, f.c, {});
  const std::string head = report::headline_table(f.c);
  EXPECT_EQ(head.find("headline at " + report::stage_load_name(LoadMode::concurrency, *f.c.baseline_knee_load) +
                      " (the baseline's knee):\n"),
            0u)
      << head;
  // Four rows (RPS, TTFT p99, TPOT p50, E2EL p99) after the title and the column header.
  EXPECT_EQ(std::count(head.begin(), head.end(), '\n'), 6) << head;
  EXPECT_NE(head.find("\nreq/s "), std::string::npos) << head;
  EXPECT_NE(head.find("\nE2EL p99 (ms) "), std::string::npos) << head;
  // The pivot: a title, one header row of loads, one row per compared metric.
  const std::string pivot = report::pivot_table(f.c);
  EXPECT_EQ(std::count(pivot.begin(), pivot.end(), '\n'), 2 + static_cast<long>(default_compare_metrics().size()))
      << pivot;
  // The TTFT p99 row carries one "*" per significant stage, and "?" nowhere (records exist).
  long significant = 0;
  for (const auto& sc : f.c.stages)
    for (const auto& d : sc.deltas) significant += d.metric == "ttft_p99" && d.significance == Significance::significant;
  const auto row = pivot.find("\nTTFT p99 (ms)");
  ASSERT_NE(row, std::string::npos) << pivot;
  const std::string line = pivot.substr(row + 1, pivot.find('\n', row + 1) - row - 1);
  EXPECT_GT(significant, 0);
  EXPECT_EQ(std::count(line.begin(), line.end(), '*'), significant) << line;
  EXPECT_EQ(line.find('?'), std::string::npos) << line;
  EXPECT_LT(out.find("headline at"), out.find("change by concurrency")) << out;
  EXPECT_NE(out.find("knee: 8 -> 16;"), std::string::npos) << out;
}

TEST(CompareTable, UnmatchedLoadsAreListedOnOneLine) {
  const auto b = test::read_fixture("knee_c16.json");  // concurrency 1 .. 128
  auto t = b;
  t.stages.resize(t.stages.size() - 2);  // stops at 32
  const auto ba = analyze_run(b, {}), ta = analyze_run(t, {});
  const auto c = compare_runs({b, t, ba.curve, ta.curve, {"request_throughput"}, {}});
  const std::string out = report::console_compare(b, t, c, {});
  EXPECT_NE(out.find("unmatched stages (in one run only, not compared): 64, 128\n"), std::string::npos) << out;
  EXPECT_NE(out.find("      0%?"), std::string::npos) << out;  // identical, no records: "0%", not "-0%"
}

TEST(CompareTable, LoadModeRefusalNamesBothFilesAndModes) {
  const auto b = test::read_fixture("knee_c16.json"), t = test::read_fixture("rate_sweep.json");
  const std::string msg = report::load_mode_refusal_text(b, t);
  EXPECT_NE(msg.find(b.source + " (concurrency sweep)"), std::string::npos) << msg;
  EXPECT_NE(msg.find(t.source + " (request_rate sweep)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("--force"), std::string::npos) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos);
}

}  // namespace
}  // namespace sb::analyze
