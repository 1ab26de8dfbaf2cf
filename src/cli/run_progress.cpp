#include "cli/run_progress.hpp"

#include <fmt/format.h>

namespace sb::cli {

std::string progress_line(const std::string& stage_label, const Progress& p) {
  const double elapsed_s = ns_to_s(p.elapsed_ns);
  const double rps = elapsed_s > 0 ? p.done / elapsed_s : 0;
  const double tps = elapsed_s > 0 ? static_cast<double>(p.output_tokens) / elapsed_s : 0;
  std::string eta = "ETA -";
  if (p.done > 0 && p.done < p.total && rps > 0) eta = fmt::format("ETA {:.1f} s", (p.total - p.done) / rps);
  if (p.done >= p.total) eta = "ETA 0.0 s";
  return fmt::format("{}  {}/{} done  {} failed  {:.1f} req/s  {:.0f} tok/s  {:.1f} s  {}", stage_label, p.done,
                     p.total, p.failed, rps, tps, elapsed_s, eta);
}

void ProgressLine::update(const std::string& stage_label, const Progress& p) {
  if (!enabled_) return;
  // "\x1b[K" clears what a longer previous line left on the right.
  std::fprintf(out_, "\r%s\x1b[K", progress_line(stage_label, p).c_str());
  std::fflush(out_);
  drawn_ = true;
}

void ProgressLine::clear() {
  if (!drawn_) return;
  std::fputs("\r\x1b[K", out_);
  std::fflush(out_);
  drawn_ = false;
}

}  // namespace sb::cli
