#include "report/analysis_json.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "analyze/fixtures.hpp"

namespace sb::analyze {
namespace {

nlohmann::ordered_json report_for(const char* name) {
  std::vector<results::Run> runs{test::read_fixture(name)};
  return report::report_json(runs, analyze_runs(runs, {}))["runs"][0];
}

TEST(AnalysisJson, KneeNamesItsStage) {
  const auto j = report_for("knee_c16.json");
  ASSERT_TRUE(j["knee"].is_object());
  EXPECT_EQ(j["knee"]["stage_index"], 4);
  EXPECT_EQ(j["knee"]["max_concurrency"], 16);
  EXPECT_TRUE(j["knee"]["max_concurrency"].is_number_integer());
  EXPECT_EQ(j["ttft_rise"]["max_concurrency"], 32.0);
  ASSERT_EQ(j["regions"].size(), 8u);
  EXPECT_EQ(j["regions"][4]["region"], "knee");
  EXPECT_EQ(j["regions"][5]["region"], "saturated");
  EXPECT_EQ(j["regions"][5]["reason_code"], "flat");  // the fixture's E2EL barely grows (x1.03)
  EXPECT_NEAR(j["regions"][5]["elasticity"].get<double>(), std::log(34.0 / 32) / std::log(2.0), 1e-9);
  // 8 -> 16 doubled throughput (e = 1): capacity ends at 16 itself, lo = hi = estimate.
  EXPECT_EQ(j["knee_bracket"]["reason_code"], "at_stage");
  EXPECT_EQ(j["knee_bracket"]["lo"], 16.0);
  EXPECT_EQ(j["knee_bracket"]["hi"], 16.0);
  EXPECT_EQ(j["knee_bracket"]["estimate"], 16.0);
  EXPECT_EQ(j["knee_bracket"]["plateau_throughput"], 35.0);
  EXPECT_EQ(j["load_mode"], "concurrency");
}

TEST(AnalysisJson, NoKneeIsNull) {
  const auto j = report_for("noknee.json");
  EXPECT_TRUE(j["knee"].is_null());
  EXPECT_NE(j["knee_reason"].get<std::string>().find("no knee"), std::string::npos);
  EXPECT_EQ(j["warnings"].size(), 4u);  // few samples at every stage
}

TEST(AnalysisJson, RateSweepUsesRequestRateKey) {
  const auto j = report_for("rate_sweep.json");
  EXPECT_EQ(j["knee"]["request_rate"], 8.0);
  EXPECT_FALSE(j["knee"].contains("max_concurrency"));
}

TEST(AnalysisJson, CapacityAnswers) {
  std::vector<results::Run> runs{test::read_fixture("knee_c16.json")};
  AnalyzeOptions opt;
  opt.target_qps = 100;
  opt.slos = parse_slos("ttft_p99_ms=100");
  const auto j = report::report_json(runs, analyze_runs(runs, opt))["runs"][0];
  EXPECT_EQ(j["capacity"]["replicas_at_knee"], 4);
  EXPECT_EQ(j["capacity"]["replicas_at_peak"], 3);
  EXPECT_EQ(j["slo"]["highest_stage_meeting_slo"]["max_concurrency"], 16.0);
  EXPECT_TRUE(j["slo"]["goodput"].is_null());
}

TEST(AnalysisJson, CompareDocument) {
  const auto b = test::read_fixture("baseline.json"), t = test::read_fixture("tuned.json");
  const auto ba = analyze_run(b, {}), ta = analyze_run(t, {});
  const auto c = compare_runs({b, t, ba.curve, ta.curve, {"ttft_p99"}, {}});
  report::GateResult g{{parse_gate_rule("ttft_p99:-10%")}, {}};
  g.violations = evaluate_gate(g.rules, c);
  const auto j = report::compare_json(b, t, c, g);
  EXPECT_EQ(j["kind"], "servebench.comparison");
  EXPECT_TRUE(j["comparable"].get<bool>());
  EXPECT_EQ(j["stages"].size(), 3u);
  EXPECT_EQ(j["stages"][0]["metrics"][0]["significance"], "significant");
  EXPECT_EQ(j["stages"][0]["metrics"][0]["ci"].size(), 2u);
  EXPECT_FALSE(j["gate"]["passed"].get<bool>());  // TTFT fell by more than 10 %
}

}  // namespace
}  // namespace sb::analyze
