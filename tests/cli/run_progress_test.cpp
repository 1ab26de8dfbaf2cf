#include "cli/run_progress.hpp"

#include <gtest/gtest.h>

namespace sb::cli {
namespace {

TEST(RunProgress, LineShowsRatesAndEta) {
  Progress p;
  p.total = 100;
  p.done = 40;
  p.failed = 2;
  p.output_tokens = 5120;
  p.elapsed_ns = 4'000'000'000;
  // 40 done in 4 s: 10 req/s, 1280 tok/s, 60 left -> 6 s.
  EXPECT_EQ(progress_line("stage 1/3 concurrency=4", p),
            "stage 1/3 concurrency=4  40/100 done  2 failed  10.0 req/s  1280 tok/s  4.0 s  ETA 6.0 s");
  p.done = 0;
  EXPECT_NE(progress_line("s", p).find("ETA -"), std::string::npos);
}

TEST(RunProgress, DisabledLineWritesNothing) {
  std::FILE* f = std::tmpfile();
  ProgressLine off(f, false);
  off.update("s", Progress{});
  off.clear();
  EXPECT_EQ(std::ftell(f), 0);
  ProgressLine on(f, true);
  on.update("s", Progress{});
  on.clear();
  EXPECT_GT(std::ftell(f), 0);
  std::fclose(f);
}

}  // namespace
}  // namespace sb::cli
