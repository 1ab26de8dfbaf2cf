// Tests for src/analyze/repeat_spread.cpp: min, max, CV and range per stage across repeats, counted
// by hand.
#include "analyze/repeat_spread.hpp"

#include <gtest/gtest.h>

namespace sb::analyze {
namespace {

StageSummary repeat_stage(std::size_t index, int repeat, double rps, double ttft_p99_ms) {
  StageSummary s;
  s.stage_index = index;
  s.repeat = repeat;
  s.load.max_concurrency = index == 0 ? 4 : 8;
  s.request_throughput = rps;
  s.ttft.percentiles_ms = {{50, ttft_p99_ms / 2}, {99, ttft_p99_ms}};
  return s;
}

TEST(RepeatSpread, PerStageAcrossRepeats) {
  // Stage 0: 100 and 130 req/s (range 30 %, differs); stage 1: 200 and 210 (5 %), TTFT 10 and 11 ms.
  const std::vector<StageSummary> stages{repeat_stage(0, 0, 100, 20), repeat_stage(1, 0, 200, 10),
                                         repeat_stage(0, 1, 130, 20), repeat_stage(1, 1, 210, 11)};
  const auto out = repeat_spread(stages);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].repeats, 2);
  EXPECT_EQ(*out[0].load.max_concurrency, 4);
  EXPECT_DOUBLE_EQ(out[0].request_throughput.min, 100);
  EXPECT_DOUBLE_EQ(out[0].request_throughput.max, 130);
  EXPECT_NEAR(out[0].request_throughput.cv, 15.0 / 115, 1e-12);  // population std 15, mean 115
  EXPECT_NEAR(out[0].request_throughput.range, 0.3, 1e-12);
  EXPECT_TRUE(out[0].differs);
  EXPECT_NEAR(out[1].ttft_p99_ms.range, 0.1, 1e-12);
  EXPECT_FALSE(out[1].differs);  // 5 % and 10 %
  EXPECT_DOUBLE_EQ(out[1].steady_request_throughput.max, 0);  // no windows given
}

TEST(RepeatSpread, OneRepeatNeverDiffers) {
  const auto out = repeat_spread({repeat_stage(0, 0, 100, 20)});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_FALSE(out[0].differs);
  EXPECT_DOUBLE_EQ(out[0].request_throughput.cv, 0);
}

}  // namespace
}  // namespace sb::analyze
