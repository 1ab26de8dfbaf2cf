#include "report/staircase_table.hpp"

#include <algorithm>
#include <array>

#include <fmt/format.h>

namespace sb::report {

namespace {

constexpr std::size_t kColumns = 9;
using Row = std::array<std::string, kColumns>;

std::string load_text(LoadMode mode, const StageSummary& s) {
  if (mode == LoadMode::concurrency && s.load.max_concurrency) return std::to_string(*s.load.max_concurrency);
  if (!s.load.open_loop()) return "inf";
  return fmt::format("{:g}", s.load.request_rate);
}

Row stage_row(LoadMode mode, const StageSummary& s) {
  return {load_text(mode, s),
          fmt::format("{:.2f}", s.request_throughput),
          fmt::format("{:.1f}", s.output_throughput),
          fmt::format("{:.1f}", s.total_token_throughput),
          fmt::format("{:.2f}", s.ttft.percentile_ms(50)),
          fmt::format("{:.2f}", s.ttft.percentile_ms(99)),
          fmt::format("{:.2f}", s.tpot.percentile_ms(50)),
          fmt::format("{:.2f}", s.itl.percentile_ms(99)),
          std::to_string(s.failed)};
}

}  // namespace

std::string format_staircase_table(LoadMode mode, const std::vector<StageSummary>& stages) {
  std::vector<Row> rows;
  rows.push_back({mode == LoadMode::concurrency ? "concurrency" : "rate (req/s)", "req/s", "out tok/s",
                  "total tok/s", "TTFT p50 ms", "TTFT p99 ms", "TPOT p50 ms", "ITL p99 ms", "failed"});
  for (const StageSummary& s : stages) rows.push_back(stage_row(mode, s));
  std::array<std::size_t, kColumns> width{};
  for (const Row& r : rows)
    for (std::size_t c = 0; c < kColumns; ++c) width[c] = std::max(width[c], r[c].size());
  std::string out;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    for (std::size_t c = 0; c < kColumns; ++c) {
      if (c > 0) out += "  ";
      out.append(width[c] - r[c].size(), ' ').append(r[c]);
    }
    // A stage cut short by Ctrl-C is not comparable with the others: say so on its row.
    if (i > 0 && stages[i - 1].aborted) out += "  (aborted)";
    out += '\n';
  }
  return out;
}

}  // namespace sb::report
