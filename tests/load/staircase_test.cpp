#include "load/staircase.hpp"

#include <cmath>
#include <limits>
#include <string>

#include <gtest/gtest.h>

#include "core/error.hpp"

namespace sb {
namespace {

constexpr double kStaircaseInf = std::numeric_limits<double>::infinity();

// "field: message" of each problem, one per line.
std::string problems_of(const StaircaseParams& p) { return describe_problems(validate(p)); }

std::vector<std::string> fields_of(const StaircaseParams& p) {
  std::vector<std::string> out;
  for (const Problem& q : validate(p)) out.push_back(q.field);
  return out;
}

TEST(Staircase, ConcurrencyListGivesOneStagePerValueAtInfiniteRate) {
  StaircaseParams p;
  p.concurrency = {1, 4, 8};
  Staircase s = plan_staircase(p, 50);
  EXPECT_EQ(s.mode, LoadMode::concurrency);
  ASSERT_EQ(s.stages.size(), 3u);
  const int expected[] = {1, 4, 8};
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(s.stages[i].index, i);
    EXPECT_EQ(s.stages[i].load.max_concurrency, expected[i]);
    EXPECT_EQ(s.stages[i].load_value, expected[i]);
    EXPECT_TRUE(std::isinf(s.stages[i].load.request_rate));
    EXPECT_EQ(s.stages[i].num_requests, 50);
  }
}

TEST(Staircase, ConcurrencyListUsesTheSingleRequestRate) {
  StaircaseParams p;
  p.concurrency = {2, 16};
  p.request_rates = {5.0};
  p.burstiness = 0.5;
  Staircase s = plan_staircase(p, 10);
  ASSERT_EQ(s.stages.size(), 2u);
  EXPECT_EQ(s.stages[1].load.request_rate, 5.0);
  EXPECT_EQ(s.stages[1].load.burstiness, 0.5);
  EXPECT_EQ(s.stages[1].load_value, 16);
}

TEST(Staircase, RateListGivesOneStagePerRateWithMaxConcurrency) {
  StaircaseParams p;
  p.request_rates = {2, 4, 8};
  p.max_concurrency = 32;
  Staircase s = plan_staircase(p, 10);
  EXPECT_EQ(s.mode, LoadMode::request_rate);
  ASSERT_EQ(s.stages.size(), 3u);
  EXPECT_EQ(s.stages[2].load.request_rate, 8.0);
  EXPECT_EQ(s.stages[2].load_value, 8.0);
  EXPECT_EQ(s.stages[2].load.max_concurrency, 32);
}

TEST(Staircase, DefaultIsOneStageAtInfiniteRateWithoutLimit) {
  Staircase s = plan_staircase({}, 1000);
  EXPECT_EQ(s.mode, LoadMode::request_rate);
  ASSERT_EQ(s.stages.size(), 1u);
  EXPECT_TRUE(std::isinf(s.stages[0].load_value));
  EXPECT_FALSE(s.stages[0].load.max_concurrency.has_value());
  EXPECT_EQ(s.stages[0].num_requests, 1000);
}

TEST(Staircase, SingleConcurrencyWithRateListLimitsEveryRateStage) {
  StaircaseParams p;
  p.concurrency = {4};
  p.request_rates = {1, kStaircaseInf};
  Staircase s = plan_staircase(p, 10);
  EXPECT_EQ(s.mode, LoadMode::request_rate);
  ASSERT_EQ(s.stages.size(), 2u);
  EXPECT_EQ(s.stages[0].load.max_concurrency, 4);
  EXPECT_EQ(s.stages[1].load.max_concurrency, 4);
}

TEST(Staircase, BothListsWithSeveralValuesNameBothFields) {
  StaircaseParams p;
  p.concurrency = {1, 2};
  p.request_rates = {1, 2};
  EXPECT_EQ(fields_of(p), std::vector<std::string>{"concurrency"});
  const std::string e = problems_of(p);
  EXPECT_NE(e.find("concurrency: request_rates lists several values too: only one of them"), std::string::npos) << e;
  EXPECT_THROW(plan_staircase(p, 10), UserError);
}

TEST(Staircase, EveryProblemIsReportedByField) {
  StaircaseParams p;
  p.concurrency = {4, 0};
  p.request_rates = {-1};
  p.max_concurrency = 0;
  p.burstiness = 0;
  p.ramp = {RampKind::exponential, 0, 4};
  EXPECT_EQ(fields_of(p), (std::vector<std::string>{"concurrency", "request_rates", "request_rates",
                                                    "max_concurrency", "max_concurrency", "burstiness",
                                                    "ramp.start_rps"}));
  const std::string e = problems_of(p);
  EXPECT_NE(e.find("concurrency: values must be > 0, got 0"), std::string::npos) << e;
  EXPECT_NE(e.find("request_rates: cannot be combined with ramp.kind (leave it at inf)"), std::string::npos) << e;
  EXPECT_NE(e.find("max_concurrency: concurrency sets the concurrency limit too"), std::string::npos) << e;
  EXPECT_TRUE(validate(StaircaseParams{}).empty());
}

TEST(Staircase, RatesWhoseScheduleOverflowsAreRefused) {
  StaircaseParams p;
  p.request_rates = {1e-300, 0.001, std::numeric_limits<double>::infinity()};
  EXPECT_TRUE(validate(p).empty());  // the requests per stage decide
  const Problems problems = validate(p, 1000);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].field, "request_rates");
  EXPECT_NE(problems[0].message.find("1e-300 req/s for 1000 requests puts the last one 1e+303 s after the start"),
            std::string::npos) << problems[0].message;
  EXPECT_THROW(plan_staircase(p, 1000), UserError);
  p.request_rates = {1e-9};  // 1 request: 1e9 s fits in 9.2e9 s; 1000 requests, 1e12 s, do not
  EXPECT_TRUE(validate(p, 1).empty());
  EXPECT_FALSE(validate(p, 1000).empty());
}

TEST(Staircase, AStageNeedsRequests) { EXPECT_THROW(plan_staircase({}, 0), UserError); }

TEST(Staircase, ModeNames) {
  EXPECT_STREQ(to_string(LoadMode::concurrency), "concurrency");
  EXPECT_STREQ(to_string(LoadMode::request_rate), "request_rate");
}

// --- searched staircases (--concurrency auto / --request-rate auto) ---

TEST(StaircaseSearch, ConcurrencyAutoPlansNoFixedStagesAndBuildsEachOnDemand) {
  StaircaseParams p;
  p.concurrency.clear();
  p.search = LoadMode::concurrency;
  const Staircase s = plan_staircase(p, 40);
  EXPECT_EQ(s.mode, LoadMode::concurrency);
  EXPECT_TRUE(s.stages.empty());
  const StagePlan st = plan_stage(p, 40, 12, 6);
  EXPECT_EQ(st.index, 6u);
  EXPECT_EQ(st.load.max_concurrency, 12);
  EXPECT_EQ(st.load_value, 12);
  EXPECT_TRUE(std::isinf(st.load.request_rate));
  EXPECT_EQ(st.num_requests, 40);
}

TEST(StaircaseSearch, RateAutoStagesKeepTheMaxConcurrency) {
  StaircaseParams p;
  p.request_rates.clear();
  p.search = LoadMode::request_rate;
  p.max_concurrency = 8;
  EXPECT_EQ(problems_of(p), "");
  const Staircase s = plan_staircase(p, 40);
  EXPECT_EQ(s.mode, LoadMode::request_rate);
  const StagePlan st = plan_stage(p, 40, 27.5, 2);
  EXPECT_EQ(st.load.request_rate, 27.5);
  EXPECT_EQ(st.load.max_concurrency, 8);
  EXPECT_EQ(st.load_value, 27.5);
}

TEST(StaircaseSearch, AutoStandsAloneAndItsPrecisionAndBudgetAreChecked) {
  StaircaseParams p;
  p.concurrency = {4};
  p.search = LoadMode::concurrency;
  p.knee_precision = 1.0;
  p.max_stages = 2;
  EXPECT_EQ(fields_of(p), (std::vector<std::string>{"concurrency", "knee_precision", "max_stages"}));
  p.concurrency.clear();
  p.knee_precision = 0;
  p.max_stages = 3;
  EXPECT_EQ(fields_of(p), (std::vector<std::string>{"knee_precision"}));
  p.knee_precision = 0.1;
  p.max_concurrency = 4;  // the search sets the limit of every stage
  EXPECT_EQ(fields_of(p), (std::vector<std::string>{"max_concurrency"}));
}

TEST(StaircaseSearch, RateAutoRefusesRateValuesConcurrencyValuesAndRamps) {
  StaircaseParams p;
  p.search = LoadMode::request_rate;
  p.request_rates = {4};
  p.concurrency = {8};
  EXPECT_EQ(fields_of(p), (std::vector<std::string>{"request_rates", "concurrency"}));
  p.request_rates.clear();
  p.concurrency.clear();
  p.ramp = RampUp{RampKind::linear, 1, 10};
  EXPECT_EQ(fields_of(p), (std::vector<std::string>{"request_rates"}));
}

TEST(StaircaseSearch, ConcurrencyAutoTakesOneRateForEveryStage) {
  StaircaseParams p;
  p.search = LoadMode::concurrency;
  p.request_rates = {5};
  EXPECT_EQ(problems_of(p), "");
  EXPECT_EQ(plan_stage(p, 10, 4, 0).load.request_rate, 5);
  p.request_rates = {5, 10};
  EXPECT_EQ(fields_of(p), (std::vector<std::string>{"request_rates"}));
}

}  // namespace
}  // namespace sb
