#pragma once
// The live progress line of a stage. Pure formatting: the caller decides whether stderr is a TTY
// (redraw with '\r') or not (print a line now and then).
#include <cstdint>
#include <string>

namespace sb::report {

struct ProgressView {
  std::size_t stage_index = 0;   // 0-based
  std::size_t stage_count = 1;
  std::string load_label;        // e.g. "concurrency 16" or "rate 4 req/s"
  int done = 0, total = 0, failed = 0;
  std::int64_t output_tokens = 0;
  double elapsed_s = 0;
};

// "stage 2/5 concurrency 16 | 120/1000 req | 45.2 req/s | 5123 tok/s | 0:12 elapsed | ETA 3:15"
// plus " | 3 failed" when any failed. No newline.
std::string format_progress_line(const ProgressView& v);

// "m:ss", or "h:mm:ss" from one hour on; negative or non-finite gives "--:--".
std::string format_clock(double seconds);

}  // namespace sb::report
