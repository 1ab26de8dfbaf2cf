#include "report/server_side_text.hpp"

#include <fmt/format.h>

namespace sb::report {

std::string ttft_breakdown_line(const TtftBreakdown& b) {
  const std::string queue = b.server_queue_mean_ms ? fmt::format("{:.2f}", *b.server_queue_mean_ms) : "n/a";
  // Without a queue time from the server, a wait for a free slot is part of the rest: say so.
  const char* rest = b.server_queue_mean_ms ? "rest (network + client)" : "rest (network + client + slot wait)";
  std::string from;
  if (b.source == TtftSource::per_request)
    from = fmt::format("per-request server timings, {} of the stage's requests", b.requests);
  else
    from = fmt::format("server /metrics means over {} requests", b.requests);
  std::string line = fmt::format("TTFT split, mean ms ({}): server queue {} + server prefill {:.2f} + {} {:.2f}",
                                 from, queue, b.server_prefill_mean_ms, rest, b.rest_mean_ms);
  if (b.rest_median_ms) line += fmt::format(" (median {:.2f})", *b.rest_median_ms);
  line += fmt::format(" = client TTFT {:.2f}", b.client_ttft_mean_ms);
  if (b.source == TtftSource::per_request && b.covered < 1)
    line += fmt::format("; {:.0f}% of successful requests reported timings", 100 * b.covered);
  return line;
}

std::vector<std::string> prompt_cache_lines(const PromptCacheShare& c, std::string_view stage_label) {
  const std::string label = stage_label.empty() ? std::string() : fmt::format("{}: ", stage_label);
  std::vector<std::string> lines;
  lines.push_back(fmt::format("{}Prompt cache: {:.1f}% of {} prompt tokens served from the server's cache ({} requests)",
                              label, 100 * c.hit_share, c.prompt_tokens, c.requests));
  if (c.mostly_cached)
    lines.push_back(fmt::format("WARNING: {}this stage was mostly served from the server's prompt cache: its TTFT and "
                                "any knee measure the cache, not prefill (use prompts the server has not seen, or "
                                "turn its prefix cache off)",
                                label));
  return lines;
}

}  // namespace sb::report
