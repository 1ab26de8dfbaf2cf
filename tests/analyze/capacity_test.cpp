#include "analyze/capacity.hpp"

#include <gtest/gtest.h>

#include "analyze/analysis.hpp"
#include "analyze/fixtures.hpp"
#include "core/error.hpp"

namespace sb::analyze {
namespace {

TEST(Slo, ParsesTerms) {
  auto s = parse_slos("ttft_p99_ms=500,tpot_p50_ms=50.5");
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].metric, "ttft_p99_ms");
  EXPECT_DOUBLE_EQ(s[0].limit_ms, 500);
  EXPECT_EQ(s[1].metric, "tpot_p50_ms");
  EXPECT_DOUBLE_EQ(s[1].limit_ms, 50.5);
}

TEST(Slo, BadTermNamesFlagAndTerm) {
  for (const char* bad : {"ttft_p99_ms", "ttft_p99_ms=abc", "=5", "ttft_p99_ms=-1", ""}) {
    try {
      parse_slos(bad);
      FAIL() << "accepted " << bad;
    } catch (const UserError& e) {
      EXPECT_NE(std::string(e.what()).find("--slo"), std::string::npos) << e.what();
    }
  }
}

TEST(Replicas, AtKneeAndAtPeak) {
  const auto run = test::read_fixture("knee_c16.json");
  const auto a = analyze_run(run, {});
  // knee: 32 req/s per replica -> ceil(100 / 32) = 4; plateau peak 35 req/s -> ceil(100 / 35) = 3.
  const auto p = plan_replicas(100, run, a.curve);
  ASSERT_TRUE(p.replicas_at_knee.has_value());
  EXPECT_NEAR(*p.knee_rps, 32.0, 1e-9);
  EXPECT_EQ(*p.replicas_at_knee, 4);
  EXPECT_NEAR(p.peak_rps, 35.0, 1e-9);
  EXPECT_EQ(*p.replicas_at_peak, 3);
  EXPECT_EQ(*plan_replicas(64, run, a.curve).replicas_at_knee, 2);  // exact multiple: no extra replica
}

TEST(Replicas, NoKneeStillGivesPeak) {
  const auto run = test::read_fixture("noknee.json");
  const auto p = plan_replicas(50, run, analyze_run(run, {}).curve);
  EXPECT_FALSE(p.replicas_at_knee.has_value());
  EXPECT_EQ(*p.replicas_at_peak, 3);  // 24 req/s peak
}

TEST(Slo, HighestStageMeetingEverySlo) {
  const auto run = test::read_fixture("knee_c16.json");
  // TTFT p99 per stage: 50 50 52 55 60 200 800 2000; TPOT p50 20 everywhere.
  auto a = highest_meeting_slo(run, parse_slos("ttft_p99_ms=100,tpot_p50_ms=25"));
  ASSERT_TRUE(a.stage.has_value());
  EXPECT_EQ(*a.stage, 4u);
  EXPECT_NEAR(a.request_throughput, 32.0, 1e-9);
  EXPECT_FALSE(a.goodput.has_value());  // no per-request data, no --goodput
  EXPECT_EQ(a.goodput_source, GoodputSource::not_measurable);
  EXPECT_FALSE(highest_meeting_slo(run, parse_slos("tpot_p50_ms=10")).stage.has_value());
}

TEST(Slo, UnknownMetricIsReported) {
  const auto run = test::read_fixture("knee_c16.json");
  auto a = highest_meeting_slo(run, parse_slos("foo_p99_ms=1"));
  EXPECT_FALSE(a.stage.has_value());
  ASSERT_EQ(a.missing.size(), 1u);
  EXPECT_EQ(a.missing[0], "foo_p99_ms");
}

TEST(Slo, GoodputFromPerRequestRecords) {
  const auto run = test::read_fixture("baseline.json");
  // Stage 0 TTFT ~ N(200, 20): every request is under 300 ms; stage 1 (~N(400, 40)) is not.
  auto a = highest_meeting_slo(run, parse_slos("ttft_p99_ms=300"));
  ASSERT_TRUE(a.stage.has_value());
  EXPECT_EQ(*a.stage, 0u);
  ASSERT_TRUE(a.goodput.has_value());
  EXPECT_EQ(a.goodput_source, GoodputSource::per_request_records);
  EXPECT_NEAR(*a.goodput, run.stages[0].request_throughput, 1e-9);
  // A 210 ms TTFT limit per request keeps only part of stage 0: goodput strictly below throughput.
  auto tight = highest_meeting_slo(run, parse_slos("ttft_p50_ms=210"));
  ASSERT_TRUE(tight.goodput.has_value());
  EXPECT_LT(*tight.goodput, run.stages[0].request_throughput);
  EXPECT_GT(*tight.goodput, 0.0);
}

}  // namespace
}  // namespace sb::analyze
