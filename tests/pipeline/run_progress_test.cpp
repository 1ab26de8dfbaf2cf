#include "pipeline/run_progress.hpp"

#include <gtest/gtest.h>

namespace sb::pipeline {
namespace {

TEST(RunProgress, RunnerCountersMapOntoTheView) {
  report::ProgressView stage;
  stage.stage_index = 0;
  stage.stage_count = 3;
  stage.load_label = "concurrency 4";
  Progress p;
  p.total = 100;
  p.done = 40;
  p.failed = 2;
  p.output_tokens = 5120;
  p.elapsed_ns = 4'000'000'000;
  const report::ProgressView v = progress_view(stage, p);
  EXPECT_EQ(v.load_label, "concurrency 4");
  EXPECT_EQ(v.stage_count, 3u);
  EXPECT_EQ(v.done, 40);
  EXPECT_EQ(v.total, 100);
  EXPECT_EQ(v.failed, 2);
  EXPECT_EQ(v.output_tokens, 5120);
  EXPECT_DOUBLE_EQ(v.elapsed_s, 4.0);
}

std::string file_text(std::FILE* f) {
  std::rewind(f);
  std::string s;
  for (int c; (c = std::fgetc(f)) != EOF;) s += static_cast<char>(c);
  return s;
}

TEST(RunProgress, RedrawsInPlaceOnlyWhenEnabled) {
  std::FILE* f = std::tmpfile();
  ProgressLine off(f, false, report::ProgressView{});
  off.update(Progress{});
  off.clear();
  EXPECT_EQ(std::ftell(f), 0);
  report::ProgressView stage;
  stage.load_label = "rate 4 req/s";
  ProgressLine on(f, true, stage);
  Progress p;
  p.total = 50;
  on.update(p);
  on.clear();
  EXPECT_EQ(file_text(f), "\rstage 1/1 rate 4 req/s | 0/50 req | 0.0 req/s | 0 tok/s | 0:00 elapsed | ETA --:--\x1b[K"
                          "\r\x1b[K");
  std::fclose(f);
}

}  // namespace
}  // namespace sb::pipeline
