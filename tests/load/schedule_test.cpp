#include "load/schedule.hpp"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "core/error.hpp"

namespace sb {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

struct GapStats {
  double mean_s = 0;
  double cv = 0;  // coefficient of variation: std / mean
};

GapStats gap_stats(const std::vector<Nanos>& offsets_ns) {
  std::vector<double> gaps_s;
  Nanos prev = 0;
  for (Nanos t : offsets_ns) {
    gaps_s.push_back(ns_to_s(t - prev));
    prev = t;
  }
  double sum = 0;
  for (double g : gaps_s) sum += g;
  const double mean = sum / static_cast<double>(gaps_s.size());
  double sq = 0;
  for (double g : gaps_s) sq += (g - mean) * (g - mean);
  return {mean, std::sqrt(sq / static_cast<double>(gaps_s.size())) / mean};
}

TEST(Schedule, InfiniteRateSendsEverythingAtZero) {
  auto s = make_schedule({.num_requests = 5, .request_rate = kInf, .burstiness = 1.0, .seed = 3});
  EXPECT_EQ(s, std::vector<Nanos>(5, 0));
}

TEST(Schedule, InfiniteBurstinessIsConstantSpacing) {
  // 4 req/s -> 250 ms apart, first request already delayed by one gap (vLLM D_0 = gap_0).
  auto s = make_schedule({.num_requests = 4, .request_rate = 4.0, .burstiness = kInf, .seed = 0});
  EXPECT_EQ(s, (std::vector<Nanos>{250'000'000, 500'000'000, 750'000'000, 1'000'000'000}));
}

TEST(Schedule, EmptyStageHasNoOffsets) {
  EXPECT_TRUE(make_schedule({.num_requests = 0, .request_rate = 2.0}).empty());
}

TEST(Schedule, LastArrivalIsExactlyNOverRate) {
  for (std::uint64_t seed : {0, 1, 42}) {
    auto s = make_schedule({.num_requests = 7, .request_rate = 3.0, .burstiness = 0.5, .seed = seed});
    ASSERT_EQ(s.size(), 7u);
    EXPECT_EQ(s.back(), std::llround(7.0 / 3.0 * 1e9)) << "seed " << seed;
    EXPECT_GT(s.front(), 0);
  }
}

TEST(Schedule, OffsetsNeverDecrease) {
  auto s = make_schedule({.num_requests = 5000, .request_rate = 1000.0, .burstiness = 0.1, .seed = 9});
  for (std::size_t i = 1; i < s.size(); ++i) ASSERT_LE(s[i - 1], s[i]) << "at " << i;
}

TEST(Schedule, PoissonGapsHaveMeanOneOverRateAndCvOne) {
  auto s = make_schedule({.num_requests = 100'000, .request_rate = 50.0, .burstiness = 1.0, .seed = 7});
  GapStats g = gap_stats(s);
  EXPECT_NEAR(g.mean_s, 0.02, 1e-9);  // exact after normalisation: (N/rate)/N
  EXPECT_NEAR(g.cv, 1.0, 0.02);
}

TEST(Schedule, GammaShapeFourHasCvOneHalf) {
  auto s = make_schedule({.num_requests = 100'000, .request_rate = 10.0, .burstiness = 4.0, .seed = 11});
  GapStats g = gap_stats(s);
  EXPECT_NEAR(g.mean_s, 0.1, 1e-9);
  EXPECT_NEAR(g.cv, 0.5, 0.01);
}

TEST(Schedule, SameSeedSameScheduleOtherSeedDiffers) {
  ScheduleParams p{.num_requests = 100, .request_rate = 5.0, .burstiness = 1.0, .seed = 123};
  auto a = make_schedule(p);
  EXPECT_EQ(a, make_schedule(p));
  p.seed = 124;
  EXPECT_NE(a, make_schedule(p));
}

TEST(Schedule, RejectsNonPositiveRateAndBurstiness) {
  EXPECT_THROW(make_schedule({.num_requests = 1, .request_rate = 0.0}), UserError);
  EXPECT_THROW(make_schedule({.num_requests = 1, .request_rate = 1.0, .burstiness = 0.0}), UserError);
  EXPECT_THROW(make_schedule({.num_requests = 1, .request_rate = std::nan("")}), UserError);
}

}  // namespace
}  // namespace sb
