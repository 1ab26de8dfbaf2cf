#include "report/staircase_table.hpp"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

namespace sb::report {

namespace {

using Row = std::vector<std::string>;

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

// --scrape-metrics / --gpu-telemetry: the server's mean queue and the GPUs' mean utilisation, as two
// more columns when any stage has them ("-" for a stage without).
struct TelemetryColumns {
  bool server = false, gpu = false;
};

std::string server_waiting_cell(const StageSummary& s) {
  if (!s.server || !s.server->waiting) return "-";
  return fmt::format("{:.1f}", s.server->waiting->mean);
}

std::string gpu_utilization_cell(const StageSummary& s) {
  if (!s.gpu) return "-";
  double total = 0;
  int n = 0;
  for (const GpuStageStats& g : s.gpu->gpus) {
    if (!g.utilization_pct) continue;
    total += g.utilization_pct->mean;
    ++n;
  }
  return n == 0 ? "-" : fmt::format("{:.0f}", total / n);
}

void add_telemetry_cells(const TelemetryColumns& cols, const StageSummary& s, Row& row) {
  if (cols.server) row.push_back(server_waiting_cell(s));
  if (cols.gpu) row.push_back(gpu_utilization_cell(s));
}

}  // namespace

std::string format_staircase_table(LoadMode mode, const std::vector<StageSummary>& stages) {
  std::vector<Row> rows;
  rows.push_back({mode == LoadMode::concurrency ? "concurrency" : "rate (req/s)", "req/s", "out tok/s",
                  "total tok/s", "TTFT p50 ms", "TTFT p99 ms", "TPOT p50 ms", "ITL p99 ms", "failed"});
  TelemetryColumns cols;
  for (const StageSummary& s : stages) {
    cols.server = cols.server || s.server.has_value();
    cols.gpu = cols.gpu || s.gpu.has_value();
  }
  if (cols.server) rows.front().push_back("srv wait");
  if (cols.gpu) rows.front().push_back("GPU %");
  for (const StageSummary& s : stages) {
    rows.push_back(stage_row(mode, s));
    add_telemetry_cells(cols, s, rows.back());
  }
  const std::size_t columns = rows.front().size();
  std::vector<std::size_t> width(columns, 0);
  for (const Row& r : rows)
    for (std::size_t c = 0; c < columns; ++c) width[c] = std::max(width[c], r[c].size());
  std::string out;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    for (std::size_t c = 0; c < columns; ++c) {
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
