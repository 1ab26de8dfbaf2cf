#include "analyze/warnings.hpp"

#include <gtest/gtest.h>

#include "analyze/fixtures.hpp"

namespace sb::analyze {
namespace {

int count_kind(const std::vector<Warning>& ws, WarningKind kind) {
  int n = 0;
  for (const auto& w : ws) n += w.kind == kind;
  return n;
}

TEST(Warnings, FewSamplesForP99) {
  const auto ws = run_warnings(test::read_fixture("noknee.json"));  // 20 completed per stage
  EXPECT_EQ(count_kind(ws, WarningKind::few_samples), 4);
  EXPECT_EQ(ws[0].percentile, 99);
  EXPECT_EQ(ws[0].completed, 20);
  EXPECT_EQ(ws[0].needed, 100);
  EXPECT_EQ(count_kind(run_warnings(test::read_fixture("knee_c16.json")), WarningKind::few_samples), 0);  // 200 each
}

TEST(Warnings, FailuresNameTheirCategory) {
  const auto ws = run_warnings(test::read_fixture("nonmonotone.json"));
  ASSERT_EQ(count_kind(ws, WarningKind::failures), 2);
  for (const auto& w : ws) {
    if (w.kind != WarningKind::failures) continue;
    EXPECT_TRUE(w.stage == 5 || w.stage == 6);
    EXPECT_TRUE(w.failed_by_category.contains("timeout"));
    EXPECT_EQ(w.requests, 200);
  }
}

TEST(Warnings, ClientSaturation) {
  const auto ws = run_warnings(test::read_fixture("rate_sweep.json"));
  ASSERT_EQ(count_kind(ws, WarningKind::client_saturated), 1);
  for (const auto& w : ws)
    if (w.kind == WarningKind::client_saturated) {
      EXPECT_EQ(w.stage, 4);
      EXPECT_EQ(w.lag_p99_ms, 50);
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
  EXPECT_NEAR(ws[0][0].cv, 1.0 / 3, 1e-9);
  EXPECT_EQ(ws[0][0].metric, "request_throughput");
  EXPECT_EQ(ws[0][0].runs, 2);
  EXPECT_EQ(ws[1].size(), 1u);
  EXPECT_TRUE(ws[2].empty());  // not a repeat of anything
}

}  // namespace
}  // namespace sb::analyze
