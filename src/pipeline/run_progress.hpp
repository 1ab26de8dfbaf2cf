#pragma once
// The live progress line of a stage on stderr, redrawn in place with '\r' when stderr is a
// terminal. The text is report/progress_line's; this file only maps the runner's counters onto it
// and does the terminal I/O.
#include <cstdio>
#include <string>

#include "exec/runner.hpp"
#include "report/progress_line.hpp"

namespace sb::pipeline {

// `stage` carries index, count and load label; the counters come from `p`.
report::ProgressView progress_view(report::ProgressView stage, const Progress& p);

class ProgressLine {
 public:
  ProgressLine(std::FILE* out, bool enabled, report::ProgressView stage)
      : out_(out), enabled_(enabled), stage_(std::move(stage)) {}
  void update(const Progress& p);
  void clear();  // erases the line before normal output continues

 private:
  std::FILE* out_;
  bool enabled_;
  report::ProgressView stage_;
  bool drawn_ = false;
};

}  // namespace sb::pipeline
