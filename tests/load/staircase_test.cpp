#include "load/staircase.hpp"

#include <cmath>
#include <limits>
#include <string>

#include <gtest/gtest.h>

#include "core/error.hpp"

namespace sb {
namespace {

constexpr double kStaircaseInf = std::numeric_limits<double>::infinity();

std::string error_of(const StaircaseParams& p) {
  try {
    plan_staircase(p);
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

TEST(Staircase, ConcurrencyListGivesOneStagePerValueAtInfiniteRate) {
  StaircaseParams p;
  p.concurrency = {1, 4, 8};
  p.num_prompts = 50;
  Staircase s = plan_staircase(p);
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
  Staircase s = plan_staircase(p);
  ASSERT_EQ(s.stages.size(), 2u);
  EXPECT_EQ(s.stages[1].load.request_rate, 5.0);
  EXPECT_EQ(s.stages[1].load.burstiness, 0.5);
  EXPECT_EQ(s.stages[1].load_value, 16);
}

TEST(Staircase, RateListGivesOneStagePerRateWithMaxConcurrency) {
  StaircaseParams p;
  p.request_rates = {2, 4, 8};
  p.max_concurrency = 32;
  Staircase s = plan_staircase(p);
  EXPECT_EQ(s.mode, LoadMode::request_rate);
  ASSERT_EQ(s.stages.size(), 3u);
  EXPECT_EQ(s.stages[2].load.request_rate, 8.0);
  EXPECT_EQ(s.stages[2].load_value, 8.0);
  EXPECT_EQ(s.stages[2].load.max_concurrency, 32);
}

TEST(Staircase, DefaultIsOneStageAtInfiniteRateWithoutLimit) {
  Staircase s = plan_staircase({});
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
  Staircase s = plan_staircase(p);
  EXPECT_EQ(s.mode, LoadMode::request_rate);
  ASSERT_EQ(s.stages.size(), 2u);
  EXPECT_EQ(s.stages[0].load.max_concurrency, 4);
  EXPECT_EQ(s.stages[1].load.max_concurrency, 4);
}

TEST(Staircase, BothListsWithSeveralValuesNameBothFlags) {
  StaircaseParams p;
  p.concurrency = {1, 2};
  p.request_rates = {1, 2};
  std::string e = error_of(p);
  EXPECT_NE(e.find("--concurrency"), std::string::npos) << e;
  EXPECT_NE(e.find("--request-rate"), std::string::npos) << e;
}

TEST(Staircase, NonPositiveValuesAreRejectedNamingTheFlag) {
  StaircaseParams c;
  c.concurrency = {4, 0};
  EXPECT_NE(error_of(c).find("--concurrency"), std::string::npos);
  StaircaseParams r;
  r.request_rates = {-1};
  EXPECT_NE(error_of(r).find("--request-rate"), std::string::npos);
  StaircaseParams m;
  m.max_concurrency = 0;
  EXPECT_NE(error_of(m).find("--max-concurrency"), std::string::npos);
  StaircaseParams n;
  n.num_prompts = 0;
  EXPECT_NE(error_of(n).find("--num-prompts"), std::string::npos);
}

TEST(Staircase, ModeNames) {
  EXPECT_STREQ(to_string(LoadMode::concurrency), "concurrency");
  EXPECT_STREQ(to_string(LoadMode::request_rate), "request_rate");
}

}  // namespace
}  // namespace sb
