#include "report/repeat_text.hpp"

#include <fmt/format.h>

#include "report/steady_text.hpp"

namespace sb::report {

std::string format_repeat_header(int repeat, int repeats) {
  return fmt::format("Repeat {} of {}: the whole staircase {}", repeat + 1, repeats, repeat == 0 ? "" : "again");
}

namespace {

nlohmann::ordered_json spread_json(const analyze::Spread& s) {
  return {{"min", s.min}, {"max", s.max}, {"cv", s.cv}, {"range", s.range}};
}

}  // namespace

std::string format_repeat_spread(const std::vector<analyze::RepeatSpread>& spreads) {
  std::string out = "\nSpread across repeats (min / max / CV):\n";
  out += fmt::format("{:<16} {:>7} {:>28} {:>30}\n", "load", "repeats", "request throughput (req/s)", "TTFT p99 (ms)");
  for (const analyze::RepeatSpread& r : spreads) {
    const auto& t = r.request_throughput;
    const auto& f = r.ttft_p99_ms;
    out += fmt::format("{:<16} {:>7} {:>28} {:>30}\n", stage_load_name(r.load), r.repeats,
                       fmt::format("{:.2f} / {:.2f} / {:.1f} %", t.min, t.max, t.cv * 100),
                       fmt::format("{:.2f} / {:.2f} / {:.1f} %", f.min, f.max, f.cv * 100));
  }
  for (const analyze::RepeatSpread& r : spreads) {
    if (!r.differs) continue;
    out += fmt::format("warning: {}: repeats differ by more than 20 %: throughput {:.2f}-{:.2f} req/s (+{:.0f} %), "
                       "TTFT p99 {:.2f}-{:.2f} ms (+{:.0f} %); the result is not reproducible at this load\n",
                       stage_load_name(r.load), r.request_throughput.min, r.request_throughput.max,
                       r.request_throughput.range * 100, r.ttft_p99_ms.min, r.ttft_p99_ms.max, r.ttft_p99_ms.range * 100);
  }
  return out;
}

nlohmann::ordered_json repeat_spread_json(const std::vector<analyze::RepeatSpread>& spreads, int repeats) {
  nlohmann::ordered_json stages = nlohmann::ordered_json::array();
  for (const analyze::RepeatSpread& r : spreads) {
    stages.push_back({{"stage_index", r.stage_index},
                      {"repeats", r.repeats},
                      {"request_throughput", spread_json(r.request_throughput)},
                      {"p99_ttft_ms", spread_json(r.ttft_p99_ms)},
                      {"steady_request_throughput", spread_json(r.steady_request_throughput)},
                      {"steady_p99_ttft_ms", spread_json(r.steady_ttft_p99_ms)},
                      {"differs", r.differs}});
  }
  return {{"count", repeats}, {"range_limit", 0.20}, {"stages", std::move(stages)}};
}

}  // namespace sb::report
