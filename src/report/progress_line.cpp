#include "report/progress_line.hpp"

#include <cmath>

#include <fmt/format.h>

namespace sb::report {

std::string format_clock(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "--:--";
  const auto total = static_cast<long long>(seconds);
  const long long h = total / 3600, m = total / 60 % 60, s = total % 60;
  if (h > 0) return fmt::format("{}:{:02}:{:02}", h, m, s);
  return fmt::format("{}:{:02}", m, s);
}

std::string format_progress_line(const ProgressView& v) {
  const bool timed = v.elapsed_s > 0;
  const double req_per_s = timed ? v.done / v.elapsed_s : 0;
  const double tok_per_s = timed ? static_cast<double>(v.output_tokens) / v.elapsed_s : 0;
  // ETA from the rate so far; unknown until the first request finishes.
  const double eta_s = req_per_s > 0 ? (v.total - v.done) / req_per_s : -1;
  std::string out = fmt::format("stage {}/{} {} | {}/{} req | {:.1f} req/s | {:.0f} tok/s | {} elapsed | ETA {}",
                                v.stage_index + 1, v.stage_count, v.load_label, v.done, v.total, req_per_s,
                                tok_per_s, format_clock(v.elapsed_s), format_clock(eta_s));
  if (v.failed > 0) out += fmt::format(" | {} failed", v.failed);
  return out;
}

}  // namespace sb::report
