#include "analyze/warnings.hpp"

#include <gtest/gtest.h>

#include "analyze/fixtures.hpp"

namespace sb::analyze {
namespace {

int count_kind(const std::vector<Warning>& ws, const std::string& kind) {
  int n = 0;
  for (const auto& w : ws) n += w.kind == kind;
  return n;
}

TEST(Warnings, FewSamplesForP99) {
  const auto ws = run_warnings(test::read_fixture("noknee.json"));  // 20 completed per stage
  EXPECT_EQ(count_kind(ws, "few_samples"), 4);
  EXPECT_NE(ws[0].message.find("needs >= 100"), std::string::npos) << ws[0].message;
  EXPECT_EQ(count_kind(run_warnings(test::read_fixture("knee_c16.json")), "few_samples"), 0);  // 200 each
}

TEST(Warnings, LinesFoldConsecutiveStagesWithTheSameText) {
  const std::vector<Warning> ws = {
      {"aborted", -1, "run was aborted: later stages are missing"},
      {"few_samples", 0, "stage 0: p99 from 48 completed requests (needs >= 100)"},
      {"few_samples", 1, "stage 1: p99 from 48 completed requests (needs >= 100)"},
      {"few_samples", 2, "stage 2: p99 from 48 completed requests (needs >= 100)"},
      {"few_samples", 3, "stage 3: p99 from 47 completed requests (needs >= 100)"},  // other count
      {"failures", 4, "stage 4: 1 of 48 requests failed"},
      {"few_samples", 5, "stage 5: p99 from 48 completed requests (needs >= 100)"},  // not consecutive
  };
  const std::vector<std::string> want = {
      "run was aborted: later stages are missing",
      "stages 0-2: p99 from 48 completed requests (needs >= 100)",
      "stage 3: p99 from 47 completed requests (needs >= 100)",
      "stage 4: 1 of 48 requests failed",
      "stage 5: p99 from 48 completed requests (needs >= 100)",
  };
  EXPECT_EQ(warning_lines(ws), want);
}

TEST(Warnings, FailuresNameTheirCategory) {
  const auto ws = run_warnings(test::read_fixture("nonmonotone.json"));
  ASSERT_EQ(count_kind(ws, "failures"), 2);
  for (const auto& w : ws) {
    if (w.kind != "failures") continue;
    EXPECT_TRUE(w.stage == 5 || w.stage == 6);
    EXPECT_NE(w.message.find("timeout"), std::string::npos) << w.message;
  }
}

TEST(Warnings, ClientSaturation) {
  const auto ws = run_warnings(test::read_fixture("rate_sweep.json"));
  ASSERT_EQ(count_kind(ws, "client_saturated"), 1);
  for (const auto& w : ws)
    if (w.kind == "client_saturated") {
      EXPECT_EQ(w.stage, 4);
    }
}

TEST(Warnings, VarianceOfRepeatedRunsAbove20Percent) {
  auto a = test::read_fixture("knee_c16.json");
  auto b = a;
  b.stages[2].request_throughput = 16;  // 8 vs 16: mean 12, std 4, CV 33 %
  b.stages[3].request_throughput = 18;  // 16 vs 18: CV 5.9 %, not flagged
  auto other = test::read_fixture("noknee.json");
  const auto ws = variance_warnings({a, b, other});
  ASSERT_EQ(ws.size(), 3u);
  ASSERT_EQ(ws[0].size(), 1u);
  EXPECT_EQ(ws[0][0].stage, 2);
  EXPECT_NE(ws[0][0].message.find("33%"), std::string::npos) << ws[0][0].message;
  EXPECT_EQ(ws[1].size(), 1u);
  EXPECT_TRUE(ws[2].empty());  // not a repeat of anything
}

}  // namespace
}  // namespace sb::analyze
