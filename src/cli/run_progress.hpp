#pragma once
// The live progress line of a stage on stderr: stage, done/total, req/s, tokens/s, elapsed, ETA.
// Redrawn in place with '\r'; only used when stderr is a terminal.
#include <cstdio>
#include <string>

#include "exec/runner.hpp"

namespace sb::cli {

// One line of text (no '\r' or newline), e.g.
// "stage 2/3 c=16  480/1000 done  3 failed  95.2 req/s  6093 tok/s  5.0 s  ETA 5.5 s".
std::string progress_line(const std::string& stage_label, const Progress& p);

class ProgressLine {
 public:
  ProgressLine(std::FILE* out, bool enabled) : out_(out), enabled_(enabled) {}
  void update(const std::string& stage_label, const Progress& p);
  void clear();  // erases the line before normal output continues

 private:
  std::FILE* out_;
  bool enabled_;
  bool drawn_ = false;
};

}  // namespace sb::cli
