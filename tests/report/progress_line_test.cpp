// Tests for src/report/progress_line.cpp (exact strings, worked out by hand).
#include "report/progress_line.hpp"

#include <gtest/gtest.h>

#include <limits>

namespace sb::report {
namespace {

TEST(ProgressLine, MidStage) {
  ProgressView v;
  v.stage_index = 1;
  v.stage_count = 5;
  v.load_label = "concurrency 16";
  v.done = 120;
  v.total = 1000;
  v.output_tokens = 61'440;
  v.elapsed_s = 12.0;
  // 10 req/s, 5120 tok/s, (1000 - 120) / 10 = 88 s left.
  EXPECT_EQ(format_progress_line(v),
            "stage 2/5 concurrency 16 | 120/1000 req | 10.0 req/s | 5120 tok/s | 0:12 elapsed | ETA 1:28");
  v.failed = 3;
  EXPECT_EQ(format_progress_line(v).substr(format_progress_line(v).size() - 11), " | 3 failed");
}

TEST(ProgressLine, BeforeFirstCompletion) {
  ProgressView v;
  v.load_label = "rate 4 req/s";
  v.total = 50;
  EXPECT_EQ(format_progress_line(v),
            "stage 1/1 rate 4 req/s | 0/50 req | 0.0 req/s | 0 tok/s | 0:00 elapsed | ETA --:--");
}

TEST(ProgressLine, Clock) {
  EXPECT_EQ(format_clock(0), "0:00");
  EXPECT_EQ(format_clock(59.9), "0:59");
  EXPECT_EQ(format_clock(3725), "1:02:05");
  EXPECT_EQ(format_clock(-1), "--:--");
  EXPECT_EQ(format_clock(std::numeric_limits<double>::infinity()), "--:--");
}

}  // namespace
}  // namespace sb::report
