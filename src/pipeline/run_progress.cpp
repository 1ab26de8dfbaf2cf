#include "pipeline/run_progress.hpp"

namespace sb::pipeline {

using report::ProgressView;
using report::format_progress_line;

ProgressView progress_view(ProgressView stage, const Progress& p) {
  stage.done = p.done;
  stage.total = p.total;
  stage.failed = p.failed;
  stage.output_tokens = p.output_tokens;
  stage.elapsed_s = ns_to_s(p.elapsed_ns);
  return stage;
}

void ProgressLine::update(const Progress& p) {
  if (!enabled_) return;
  // "\x1b[K" clears what a longer previous line left on the right.
  std::fprintf(out_, "\r%s\x1b[K", format_progress_line(progress_view(stage_, p)).c_str());
  std::fflush(out_);
  drawn_ = true;
}

void ProgressLine::clear() {
  if (!drawn_) return;
  std::fputs("\r\x1b[K", out_);
  std::fflush(out_);
  drawn_ = false;
}

}  // namespace sb::pipeline
