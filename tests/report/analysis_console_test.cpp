#include "report/analysis_console.hpp"

#include <gtest/gtest.h>

#include "analyze/fixtures.hpp"

namespace sb::analyze {
namespace {

TEST(Console, TextChartScalesToLargestValue) {
  const std::string out = report::text_chart("rps", {"1", "2"}, {5, 10}, 1, 4);
  EXPECT_EQ(out,
            "rps\n"
            "       1 |##  | 5.0\n"
            "       2 |####| 10.0  <- knee\n");
}

TEST(Console, ReportShowsTableKneeRegionsAndCharts) {
  const auto run = test::read_fixture("knee_c16.json");
  const std::string out = report::console_report(run, analyze_run(run, {}));
  EXPECT_NE(out.find("knee: concurrency = 16 (32.00 req/s)"), std::string::npos) << out;
  EXPECT_NE(out.find("TTFT rises steeply from concurrency = 32"), std::string::npos);
  EXPECT_NE(out.find("requests/s\n"), std::string::npos);
  EXPECT_NE(out.find("TTFT p99 (ms)\n"), std::string::npos);
  EXPECT_NE(out.find("output tokens/s\n"), std::string::npos);
  // The stage-table row of concurrency 16 carries the region and the marker.
  const auto row = out.find("\n      16 ");
  ASSERT_NE(row, std::string::npos);
  const std::string line = out.substr(row + 1, out.find('\n', row + 1) - row - 1);
  EXPECT_NE(line.find("knee  <- knee"), std::string::npos) << line;
}

TEST(Console, CompareListsViolations) {
  const auto b = test::read_fixture("tuned.json"), t = test::read_fixture("baseline.json");
  const auto ba = analyze_run(b, {}), ta = analyze_run(t, {});
  const auto c = compare_runs({b, t, ba.curve, ta.curve, {"ttft_p99"}, {}});
  report::GateResult g{{parse_gate_rule("ttft_p99@8:+10%")}, {}};
  g.violations = evaluate_gate(g.rules, c);
  const std::string out = report::console_compare(b, t, c, g);
  EXPECT_NE(out.find("FAIL ttft_p99@8:+10%: ttft_p99 at load 8: +32.9%"), std::string::npos) << out;
  EXPECT_NE(out.find("significant"), std::string::npos);
  // Peak throughput shift with its relative change (tuned.json -> baseline.json is a regression).
  EXPECT_NE(out.find("; peak req/s: "), std::string::npos) << out;
  EXPECT_NE(out.find("%)\n"), std::string::npos) << out;
}

TEST(Console, UnmatchedLoadsAreListedOnOneLine) {
  const auto b = test::read_fixture("knee_c16.json");  // concurrency 1 .. 128
  auto t = b;
  t.stages.resize(t.stages.size() - 2);  // stops at 32
  const auto ba = analyze_run(b, {}), ta = analyze_run(t, {});
  const auto c = compare_runs({b, t, ba.curve, ta.curve, {"request_throughput"}, {}});
  const std::string out = report::console_compare(b, t, c, {});
  EXPECT_NE(out.find("unmatched stages (in one run only, not compared): 64, 128\n"), std::string::npos) << out;
  EXPECT_NE(out.find("request_throughput"), std::string::npos);
  EXPECT_NE(out.find(" 0%  "), std::string::npos) << out;  // identical stages: no "-0%"
}

}  // namespace
}  // namespace sb::analyze
