#include "sim/prom_histogram.hpp"

#include <array>
#include <gtest/gtest.h>

namespace sb::sim {
namespace {

TEST(PromHistogram, BucketsAreLessThanOrEqualWithOverflow) {
  static constexpr std::array<double, 3> kBounds = {0.1, 1.0, 10.0};
  PromHistogram h(kBounds);
  h.observe(0.1);  // le=0.1 (inclusive)
  h.observe(0.5);
  h.observe(1.0);
  h.observe(11.0);  // +Inf
  EXPECT_EQ(h.bucket_count(0), 1u);
  EXPECT_EQ(h.bucket_count(1), 2u);
  EXPECT_EQ(h.bucket_count(2), 0u);
  EXPECT_EQ(h.bucket_count(3), 1u);
  EXPECT_EQ(h.count(), 4u);
  EXPECT_DOUBLE_EQ(h.sum(), 12.6);
}

}  // namespace
}  // namespace sb::sim
