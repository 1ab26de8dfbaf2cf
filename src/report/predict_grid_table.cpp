#include "report/predict_grid_table.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace sb::report {
namespace {

std::string point_label(const std::vector<std::pair<std::string, double>>& point) {
  std::string out;
  for (const auto& [key, value] : point) out += fmt::format("{}{}={:g}", out.empty() ? "" : " ", key, value);
  return out.empty() ? "(base)" : out;
}

std::string cell(const std::optional<double>& v, const char* format) {
  return v ? fmt::format(fmt::runtime(format), *v) : "-";
}

}  // namespace

std::string format_grid_table(LoadMode mode, const std::vector<GridRow>& rows) {
  std::vector<std::string> labels;
  std::size_t width = 13;
  for (const GridRow& r : rows) {
    labels.push_back(point_label(r.point));
    width = std::max(width, labels.back().size());
  }
  const char* load = mode == LoadMode::concurrency ? "knee conc." : "knee rate";
  std::string out = fmt::format("\nPredicted, per engine setting:\n{:<{}}  {:>10}  {:>10}  {:>13}  {:>13}  {:>13}\n",
                                "setting", width, load, "req/s", "peak tok/s", "TTFT p50 ms", "TPOT p50 ms");
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const GridRow& r = rows[i];
    if (r.error) {
      out += fmt::format("{:<{}}  cannot run: {}\n", labels[i], width, *r.error);
      continue;
    }
    out += fmt::format("{:<{}}  {:>10}  {:>10}  {:>13.1f}  {:>13}  {:>13}\n", labels[i], width,
                       cell(r.knee_load, "{:g}"), cell(r.knee_rps, "{:.2f}"), r.peak_output_tps,
                       cell(r.knee_ttft_p50_ms, "{:.1f}"), cell(r.knee_tpot_p50_ms, "{:.2f}"));
  }
  return out;
}

}  // namespace sb::report
