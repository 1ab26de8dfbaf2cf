#include "report/workload_text.hpp"

#include <iterator>

#include <fmt/format.h>

namespace sb::report {

namespace {

std::string finish_reason_list(const OutputCheck& c) {
  std::string out;
  for (const auto& [name, n] : c.finish_reasons) {
    if (!out.empty()) out += ", ";
    // "none": the server sent no finish_reason at all.
    fmt::format_to(std::back_inserter(out), "{} {}", name == "none" ? "not given" : name, n);
  }
  return out;
}

std::string prefix(std::string_view stage_label) {
  return stage_label.empty() ? std::string("WARNING: ") : fmt::format("WARNING: {}: ", stage_label);
}

}  // namespace

std::vector<std::string> output_check_lines(const OutputCheck& c, std::string_view stage_label,
                                            std::size_t tpot_samples, std::size_t itl_samples) {
  std::vector<std::string> lines;
  if (c.short_of_requested) {
    const bool cut = c.finish_reasons.count("length") > 0;
    lines.push_back(fmt::format(
        "{}outputs fell {:.1f}% short of the requested length ({} of {} tokens; {} requests short; finish "
        "reasons: {}){}",
        prefix(stage_label), 100 * c.shortfall, c.delivered_tokens, c.requested_tokens, c.short_requests,
        finish_reason_list(c),
        cut ? ": \"length\" before max_tokens means the context window was full (shorter inputs or a larger "
              "--max-model-len)"
            : ""));
  }
  if (c.without_text > 0) {
    lines.push_back(fmt::format("{}{} successful requests streamed no token text{}", prefix(stage_label),
                                c.without_text,
                                tpot_samples == 0 || itl_samples == 0
                                    ? fmt::format(" (TPOT from {} requests, ITL from {} gaps: a 0.00 there "
                                                  "is no measurement)",
                                                  tpot_samples, itl_samples)
                                    : ""));
  }
  return lines;
}

std::string format_intended_latency(const StageSummary& s) {
  if (!s.ttft_from_intended || !s.e2el_from_intended) return {};
  std::string out = "Latency from the intended send time (includes client-side queueing):\n";
  auto line = [&out](const char* name, const MetricStats& m) {
    fmt::format_to(std::back_inserter(out), "  {:<5} mean {:.2f} ms, median {:.2f} ms, P99 {:.2f} ms\n", name,
                   m.mean_ms, m.median_ms, m.percentile_ms(99));
  };
  line("TTFT", *s.ttft_from_intended);
  line("E2EL", *s.e2el_from_intended);
  return out;
}

}  // namespace sb::report
