// Known-answer tests of the knee search policy on synthetic throughput curves: the search is run
// against a function of the load, as servebench run would run it against a server.
#include "pipeline/knee_search.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <set>
#include <vector>

#include <gtest/gtest.h>

namespace sb::pipeline {
namespace {

struct KneeSearchTrace {
  std::vector<SearchPoint> points;  // run order
  std::vector<SearchReason> reasons;
  SearchDecision last;
};

KneeSearchTrace run_knee_search(const KneeSearchParams& p, const std::function<double(double)>& throughput_at) {
  KneeSearchTrace t;
  for (int guard = 0; guard < 100; ++guard) {
    t.last = next_search_step(p, t.points);
    if (!t.last.next) return t;
    t.reasons.push_back(t.last.next->reason);
    t.points.push_back({t.last.next->load, throughput_at(t.last.next->load)});
  }
  ADD_FAILURE() << "the search did not end";
  return t;
}

std::vector<double> loads_of(const KneeSearchTrace& t) {
  std::vector<double> out;
  for (const SearchPoint& s : t.points) out.push_back(s.load);
  return out;
}

// A server that serves at most `capacity` requests at once, each in `service_s`: closed-loop
// throughput min(c, capacity) / service_s.
double fixed_capacity_rps(double c, double capacity, double service_s) { return std::min(c, capacity) / service_s; }

TEST(KneeSearch, FixedCapacity12IsFoundWithinTenPercent) {
  const KneeSearchParams p;  // concurrency, from 1, 10 %, 12 stages
  const KneeSearchTrace t = run_knee_search(p, [](double c) { return fixed_capacity_rps(c, 12, 0.021); });
  ASSERT_EQ(t.last.stopped, SearchStop::precision);
  ASSERT_TRUE(t.last.bracket.lo && t.last.bracket.hi);
  const double lo = *t.last.bracket.lo, hi = *t.last.bracket.hi;
  EXPECT_NEAR(hi, 12, 1.2);
  EXPECT_TRUE(hi - lo <= 1 || (hi - lo) / lo <= 0.1) << lo << "-" << hi;
  // Doubling up to the plateau (16 still grows by half over 8, 32 and 64 do not), then inside 8-16.
  const std::vector<double> loads = loads_of(t);
  ASSERT_GE(loads.size(), 8u);
  EXPECT_EQ(std::vector<double>(loads.begin(), loads.begin() + 7), (std::vector<double>{1, 2, 4, 8, 16, 32, 64}));
  EXPECT_EQ(t.reasons[7], SearchReason::bisect);
  EXPECT_GT(loads[7], 8);
  EXPECT_LT(loads[7], 16);
  EXPECT_LE(static_cast<int>(loads.size()), p.max_stages);
  for (double c : loads) EXPECT_EQ(c, std::floor(c)) << "concurrency must be whole";
  EXPECT_EQ(std::set<double>(loads.begin(), loads.end()).size(), loads.size()) << "a load was run twice";
}

TEST(KneeSearch, CapacityBeyondTheBudgetStopsOnBudgetWithAnOpenBracket) {
  KneeSearchParams p;
  p.max_stages = 5;
  const KneeSearchTrace t = run_knee_search(p, [](double c) { return fixed_capacity_rps(c, 1000, 0.021); });
  EXPECT_EQ(loads_of(t), (std::vector<double>{1, 2, 4, 8, 16}));
  EXPECT_EQ(t.last.stopped, SearchStop::budget);
  EXPECT_EQ(t.last.bracket.lo, 16);
  EXPECT_FALSE(t.last.bracket.hi);
}

TEST(KneeSearch, BudgetSpentInsideTheBracketKeepsTheBracket) {
  KneeSearchParams p;
  p.max_stages = 8;  // 1 2 4 8 16 32 64, then 12 alone
  const KneeSearchTrace t = run_knee_search(p, [](double c) { return fixed_capacity_rps(c, 12, 0.021); });
  EXPECT_EQ(loads_of(t).back(), 12);
  EXPECT_EQ(t.last.stopped, SearchStop::budget);
  EXPECT_EQ(t.last.bracket.lo, 8);
  EXPECT_EQ(t.last.bracket.hi, 12);
}

TEST(KneeSearch, OneStageMeasuredLowDoesNotEndTheStaircase) {
  // c=8 reads half (a hiccup): 8 does not grow over 4, but 16 does, so the doubling goes on.
  const auto hiccup = [](double c) { return fixed_capacity_rps(c, 12, 0.021) * (c == 8 ? 0.5 : 1.0); };
  const KneeSearchTrace t = run_knee_search({}, hiccup);
  ASSERT_EQ(t.last.stopped, SearchStop::precision);
  EXPECT_NEAR(*t.last.bracket.hi, 12, 1.2);
}

TEST(KneeSearch, NoisyPlateauStillLandsWithinPrecision) {
  // +-3 % measurement noise, different at every load (a server is never exactly flat).
  const auto noisy = [](double c) { return fixed_capacity_rps(c, 12, 0.021) * (1 + 0.03 * std::sin(c * 7.3)); };
  const KneeSearchTrace t = run_knee_search({}, noisy);
  ASSERT_EQ(t.last.stopped, SearchStop::precision);
  EXPECT_NEAR(*t.last.bracket.hi, 12, 1.2);
}

TEST(KneeSearch, OverloadPastTheKneeDoesNotMoveTheBracket) {
  // Throughput falls past 12 (thrashing): only the lowest saturated load matters.
  const auto falling = [](double c) { return c <= 12 ? c : 12 * std::pow(12 / c, 0.7); };
  const KneeSearchTrace t = run_knee_search({}, falling);
  ASSERT_EQ(t.last.stopped, SearchStop::precision);
  EXPECT_NEAR(*t.last.bracket.hi, 12, 1.2);
}

TEST(KneeSearch, RateModeFindsTheCapacityWithinPrecision) {
  // 12 slots of 37 ms: 324 req/s; open loop achieves the offered rate up to it.
  const double capacity_rps = 12 / 0.037;
  KneeSearchParams p;
  p.mode = LoadMode::request_rate;
  p.start_load = start_rate_from_latency(0.037);
  EXPECT_EQ(p.start_load, 27);
  const KneeSearchTrace t = run_knee_search(p, [&](double r) { return std::min(r, capacity_rps); });
  ASSERT_EQ(t.last.stopped, SearchStop::precision);
  const double lo = *t.last.bracket.lo, hi = *t.last.bracket.hi;
  EXPECT_LE((hi - lo) / lo, 0.1 + 1e-9);
  EXPECT_NEAR(hi, capacity_rps, 0.1 * capacity_rps);
  EXPECT_LE(lo, capacity_rps);
  EXPECT_EQ(loads_of(t)[1], 54);
}

TEST(KneeSearch, RateModeIsNotMisledByShortStagesReadingHighFarPastCapacity) {
  // 120 requests a stage, 35 ms each, 343 req/s capacity: a stage lasts its sending time plus one
  // drain tail, which shrinks as the burst gets denser, so throughput creeps up past capacity
  // (448 req/s: 318, 896 req/s: 330) while the knee is at 343.
  const double n = 120, service_s = 0.035, capacity_rps = 12 / service_s;
  const auto short_stages = [&](double r) {
    return r <= capacity_rps ? n / (n / r + service_s) : n / (n / capacity_rps + service_s * capacity_rps / r);
  };
  KneeSearchParams p;
  p.mode = LoadMode::request_rate;
  p.start_load = 28;
  const KneeSearchTrace t = run_knee_search(p, short_stages);
  ASSERT_EQ(t.last.stopped, SearchStop::precision);
  EXPECT_NEAR(*t.last.bracket.hi, capacity_rps, 0.1 * capacity_rps);
  EXPECT_LE((*t.last.bracket.hi - *t.last.bracket.lo) / *t.last.bracket.lo, 0.1 + 1e-9);
}

TEST(KneeSearch, RateModeStartingAboveCapacityHalvesDown) {
  KneeSearchParams p;
  p.mode = LoadMode::request_rate;
  p.start_load = 8;
  const KneeSearchTrace t = run_knee_search(p, [](double r) { return std::min(r, 1.0); });
  ASSERT_EQ(t.last.stopped, SearchStop::precision);
  EXPECT_EQ(t.reasons[3], SearchReason::halving);  // after 8 16 32
  EXPECT_NEAR(*t.last.bracket.hi, 1.0, 0.1);
}

TEST(KneeSearch, ASingleSlotServerSaturatesAtConcurrencyOne) {
  const KneeSearchTrace t = run_knee_search({}, [](double) { return 40.0; });
  EXPECT_EQ(loads_of(t), (std::vector<double>{1, 2, 4}));
  EXPECT_EQ(t.last.stopped, SearchStop::precision);
  EXPECT_EQ(t.last.bracket.hi, 1);
  EXPECT_FALSE(t.last.bracket.lo);
}

TEST(KneeSearch, StartRateIsTheOneRequestThroughputInTwoDigits) {
  EXPECT_DOUBLE_EQ(start_rate_from_latency(0.037), 27);
  EXPECT_DOUBLE_EQ(start_rate_from_latency(0.0021), 470);
  EXPECT_DOUBLE_EQ(start_rate_from_latency(4.0), 0.25);
  EXPECT_DOUBLE_EQ(start_rate_from_latency(0), 1);  // no measurement: 1 req/s
}

}  // namespace
}  // namespace sb::pipeline
