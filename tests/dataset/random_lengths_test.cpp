#include "dataset/random_lengths.hpp"

#include <algorithm>

#include <gtest/gtest.h>

#include "core/error.hpp"

namespace sb::dataset {
namespace {

DatasetConfig cfg_with(int input_len, int output_len, double r_in, double r_out) {
  DatasetConfig cfg;
  cfg.num_prompts = 2000;
  cfg.random_input_len = input_len;
  cfg.random_output_len = output_len;
  cfg.random_range_ratio_input = r_in;
  cfg.random_range_ratio_output = r_out;
  return cfg;
}

TEST(RandomLengths, RangesFollowTheFloorCeilRule) {
  std::mt19937_64 rng(1);
  // input: real = 21 - 1 = 20, r 0.3 -> [floor(14), ceil(26)] = [14, 26]
  // output: 3, r 0.9 -> [max(floor(0.3),1), ceil(5.7)] = [1, 6]
  RandomDraws d = draw_random_lengths(cfg_with(21, 3, 0.3, 0.9), 1, 50, rng);
  ASSERT_EQ(d.input_lens.size(), 2000u);
  EXPECT_EQ(*std::min_element(d.input_lens.begin(), d.input_lens.end()), 14);
  EXPECT_EQ(*std::max_element(d.input_lens.begin(), d.input_lens.end()), 26);
  EXPECT_EQ(*std::min_element(d.output_lens.begin(), d.output_lens.end()), 1);
  EXPECT_EQ(*std::max_element(d.output_lens.begin(), d.output_lens.end()), 6);
  EXPECT_EQ(*std::min_element(d.offsets.begin(), d.offsets.end()), 0);
  EXPECT_EQ(*std::max_element(d.offsets.begin(), d.offsets.end()), 49);
}

TEST(RandomLengths, ZeroRatioGivesFixedLengths) {
  std::mt19937_64 rng(2);
  RandomDraws d = draw_random_lengths(cfg_with(1024, 128, 0, 0), 1, 32000, rng);
  EXPECT_TRUE(std::all_of(d.input_lens.begin(), d.input_lens.end(), [](int v) { return v == 1023; }));
  EXPECT_TRUE(std::all_of(d.output_lens.begin(), d.output_lens.end(), [](int v) { return v == 128; }));
}

TEST(RandomLengths, RejectsOutOfRangeFlags) {
  std::mt19937_64 rng(3);
  EXPECT_THROW(draw_random_lengths(cfg_with(10, 10, -0.1, 0), 0, 10, rng), UserError);
  EXPECT_THROW(draw_random_lengths(cfg_with(10, 10, 0, 1.0), 0, 10, rng), UserError);
  EXPECT_THROW(draw_random_lengths(cfg_with(10, 0, 0, 0), 0, 10, rng), UserError);
  EXPECT_THROW(draw_random_lengths(cfg_with(2, 10, 0, 0), 2, 10, rng), UserError);  // nothing left
}

TEST(RandomLengths, RequestStreamsAreReproducibleAndDistinct) {
  auto a = request_rng(7, 0), b = request_rng(7, 0), c = request_rng(7, 1);
  const auto first = a();
  EXPECT_EQ(first, b());
  EXPECT_NE(first, c());
}

}  // namespace
}  // namespace sb::dataset
