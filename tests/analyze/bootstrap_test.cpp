#include "analyze/bootstrap.hpp"

#include <algorithm>
#include <vector>

#include <gtest/gtest.h>

namespace sb::analyze {
namespace {

TEST(Percentile, MatchesNumpyLinear) {
  // numpy.percentile([1, 2, 3, 4], [0, 50, 99, 100]) = [1, 2.5, 3.97, 4]
  std::vector<double> v{1, 2, 3, 4};
  EXPECT_DOUBLE_EQ(percentile_sorted(v, 0), 1);
  EXPECT_DOUBLE_EQ(percentile_sorted(v, 50), 2.5);
  EXPECT_NEAR(percentile_sorted(v, 99), 3.97, 1e-12);
  EXPECT_DOUBLE_EQ(percentile_sorted(v, 100), 4);
  std::vector<double> one{7};
  EXPECT_DOUBLE_EQ(percentile_sorted(one, 99), 7);
}

TEST(Bootstrap, SeparatedSamplesAreSignificant) {
  std::vector<double> a, b;
  for (int i = 0; i < 100; ++i) {
    a.push_back(100 + i % 10);  // 100..109
    b.push_back(150 + i % 10);  // 150..159
  }
  auto ci = bootstrap_difference(a, b, Statistic{50, false});
  ASSERT_TRUE(ci.has_value());
  EXPECT_TRUE(ci->excludes_zero());
  EXPECT_GE(ci->low, 45);  // the true median difference is 50; resampled medians stay within 100..109
  EXPECT_LE(ci->high, 55);
}

TEST(Bootstrap, SameSampleIsNotSignificantAndDeterministic) {
  std::vector<double> a;
  for (int i = 0; i < 200; ++i) a.push_back((i * 37) % 101);
  auto ci = bootstrap_difference(a, a, Statistic{0, true});
  ASSERT_TRUE(ci.has_value());
  EXPECT_FALSE(ci->excludes_zero());
  auto again = bootstrap_difference(a, a, Statistic{0, true});
  EXPECT_EQ(ci->low, again->low);
  EXPECT_EQ(ci->high, again->high);
}

TEST(Bootstrap, TooFewSamples) {
  std::vector<double> one{1}, two{1, 2};
  EXPECT_FALSE(bootstrap_difference(one, two, Statistic{}).has_value());
}

}  // namespace
}  // namespace sb::analyze

namespace sb::analyze {
namespace {

TEST(Statistic, PercentileBySelectionMatchesSortedPercentile) {
  std::vector<double> v;
  for (int i = 0; i < 101; ++i) v.push_back((i * 53) % 101 * 1.5);  // a permutation of 0..150 step 1.5
  for (double p : {0.0, 12.5, 50.0, 99.0, 100.0}) {
    auto copy = v;
    std::vector<double> sorted = v;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_DOUBLE_EQ((Statistic{p, false}(copy)), percentile_sorted(sorted, p)) << p;
  }
  std::vector<double> m{1, 2, 6};
  EXPECT_DOUBLE_EQ((Statistic{0, true}(m)), 3.0);
}

}  // namespace
}  // namespace sb::analyze
