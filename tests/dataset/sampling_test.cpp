#include "dataset/sampling.hpp"

#include <algorithm>
#include <set>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "core/error.hpp"

namespace sb::dataset {
namespace {

TEST(Sampling, UniformBetweenStaysInRangeAndHitsBothEnds) {
  std::mt19937_64 rng(5);
  std::set<std::int64_t> seen;
  for (int i = 0; i < 2000; ++i) {
    const auto v = uniform_between(rng, -2, 3);
    ASSERT_GE(v, -2);
    ASSERT_LE(v, 3);
    seen.insert(v);
  }
  EXPECT_EQ(seen.size(), 6u);
}

TEST(Sampling, ShuffledOrderIsASeededPermutation) {
  auto a = shuffled_order(100, 7, false);
  auto sorted = a;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, shuffled_order(100, 0, true));
  EXPECT_NE(a, sorted);
  EXPECT_EQ(a, shuffled_order(100, 7, false));
  EXPECT_NE(a, shuffled_order(100, 8, false));
  EXPECT_EQ(shuffled_order(3, 1, true), (std::vector<std::size_t>{0, 1, 2}));
}

Dataset three_requests() {
  Dataset ds;
  for (int i = 0; i < 3; ++i) {
    ds.requests.push_back({fmt::format("p{}", i), i + 10, 5, fmt::format("x-{}", i)});
  }
  return ds;
}

TEST(Sampling, OversampleCopiesExistingRequestsWithNewIds) {
  DatasetConfig cfg;
  cfg.num_prompts = 8;
  cfg.seed = 3;
  cfg.request_id_prefix = "x-";
  Dataset ds = three_requests();
  maybe_oversample(ds, cfg, "test");
  ASSERT_EQ(ds.requests.size(), 8u);
  for (std::size_t i = 3; i < 8; ++i) {
    const RequestSpec& r = ds.requests[i];
    EXPECT_EQ(r.request_id, fmt::format("x-{}", i));
    const int src = r.prompt_tokens - 10;  // which original it copies
    ASSERT_TRUE(src >= 0 && src < 3);
    EXPECT_EQ(r.prompt, fmt::format("p{}", src));
  }
  ASSERT_EQ(ds.warnings.size(), 1u);
  Dataset again = three_requests();
  maybe_oversample(again, cfg, "test");
  for (std::size_t i = 0; i < 8; ++i) EXPECT_EQ(again.requests[i].prompt, ds.requests[i].prompt);
}

TEST(Sampling, OversampleRespectsNoOversampleAndFailsOnNothing) {
  DatasetConfig cfg;
  cfg.num_prompts = 8;
  cfg.no_oversample = true;
  Dataset ds = three_requests();
  maybe_oversample(ds, cfg, "test");
  EXPECT_EQ(ds.requests.size(), 3u);
  EXPECT_EQ(ds.warnings.size(), 1u);
  cfg.no_oversample = false;
  Dataset empty;
  EXPECT_THROW(maybe_oversample(empty, cfg, "test"), UserError);
}

TEST(Sampling, ApproxTokenCountIsCeilBytesOverFour) {
  EXPECT_EQ(approx_token_count(""), 1);
  EXPECT_EQ(approx_token_count("abcd"), 1);
  EXPECT_EQ(approx_token_count("abcde"), 2);
  EXPECT_EQ(approx_token_count(std::string(4096, 'x')), 1024);
}

}  // namespace
}  // namespace sb::dataset
