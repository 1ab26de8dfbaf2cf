#include "analyze/gate.hpp"

#include <gtest/gtest.h>

#include "analyze/analysis.hpp"
#include "analyze/fixtures.hpp"
#include "core/error.hpp"

namespace sb::analyze {
namespace {

Comparison compare_files(const char* base, const char* tuned) {
  const auto b = test::read_fixture(base), t = test::read_fixture(tuned);
  const auto ba = analyze_run(b, {}), ta = analyze_run(t, {});
  return compare_runs({b, t, ba.curve, ta.curve, default_compare_metrics(), {}});
}

std::vector<GateViolation> gate(const Comparison& c, std::vector<std::string> texts) {
  std::vector<GateRule> rules;
  for (const auto& t : texts) rules.push_back(parse_gate_rule(t));
  return evaluate_gate(rules, c);
}

TEST(Gate, ParsesRules) {
  auto r = parse_gate_rule("ttft_p99:+10%");
  EXPECT_EQ(r.metric, "ttft_p99");
  EXPECT_DOUBLE_EQ(r.limit_rel, 0.10);
  EXPECT_FALSE(r.at_load.has_value());
  auto s = parse_gate_rule("request_throughput@64:-5%");
  EXPECT_EQ(s.metric, "request_throughput");
  EXPECT_DOUBLE_EQ(s.limit_rel, -0.05);
  EXPECT_DOUBLE_EQ(*s.at_load, 64);
}

TEST(Gate, BadRulesNameTheFlag) {
  for (const char* bad : {"ttft_p99", "ttft_p99:10%", "ttft_p99:+10", ":+10%", "ttft_p99@x:+1%", "ttft_p99:+a%"}) {
    try {
      parse_gate_rule(bad);
      FAIL() << "accepted " << bad;
    } catch (const UserError& e) {
      EXPECT_NE(std::string(e.what()).find("--fail-if"), std::string::npos);
    }
  }
}

TEST(Gate, PassesWhenTunedIsBetter) {
  const auto c = compare_files("baseline.json", "tuned.json");
  EXPECT_TRUE(gate(c, {"ttft_p99:+10%", "request_throughput:-5%"}).empty());
}

TEST(Gate, FailsWhenTheRunRegressed) {
  // Swapped: the "tuned" run is the slower one, TTFT up 33-100 %, RPS down 2-12 %.
  const auto c = compare_files("tuned.json", "baseline.json");
  const auto v = gate(c, {"ttft_p99:+10%", "request_throughput:-5%"});
  int ttft = 0, rps = 0;
  for (const auto& x : v) (x.rule == "ttft_p99:+10%" ? ttft : rps)++;
  EXPECT_EQ(ttft, 3);  // every stage
  EXPECT_EQ(rps, 1);   // only concurrency 32 lost more than 5 % (-12 %)
  EXPECT_EQ(v.back().metric, "request_throughput");
  EXPECT_EQ(v.back().load_value, 32);
  EXPECT_LT(v.back().rel_change, v.back().limit_rel);
}

TEST(Gate, NamedStageOnly) {
  const auto c = compare_files("tuned.json", "baseline.json");
  const auto v = gate(c, {"ttft_p99@16:+10%"});
  ASSERT_EQ(v.size(), 1u);
  EXPECT_DOUBLE_EQ(v[0].load_value, 16);
  EXPECT_THROW(gate(c, {"ttft_p99@5:+10%"}), UserError);  // no such stage
  EXPECT_THROW(gate(c, {"nonsense_p99:+10%"}), UserError);
}

}  // namespace
}  // namespace sb::analyze
