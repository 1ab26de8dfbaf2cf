#include "trace/kernel_stats.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "trace/csv.hpp"
#include "trace/nsys.hpp"
#include "trace/parse_util.hpp"

namespace sb::trace {
namespace {

bool rocprof_header(const CsvRow& row) { return has_cells(row, {"Name", "Calls", "TotalDurationNs", "AverageNs"}); }

bool nsys_header(const CsvRow& row) {
  return has_cells(row, {"Time (%)"}) && !row.cells.empty() &&
         (iequals(row.cells.back(), "Name") || iequals(row.cells.back(), "Operation"));
}

bool stats_header(const CsvRow& row) { return rocprof_header(row) || nsys_header(row); }

// Column holding a time in the header's unit, converted to ns.
struct TimeColumn {
  std::optional<std::size_t> col;
  double scale = 1;
};

TimeColumn time_column(const CsvTable& t, std::string_view prefix) {
  TimeColumn c{find_prefixed(t.header(), prefix)};
  if (c.col) c.scale = time_unit_to_ns(t.header().cells[*c.col]);
  if (c.col && c.scale == 0) c.scale = 1;  // rocprof "…Ns" names carry the unit themselves
  return c;
}

std::optional<double> time_at(const CsvTable& t, const CsvRow& row, const TimeColumn& c) {
  if (!c.col || is_missing_cell(t.text_at(row, *c.col))) return std::nullopt;
  return t.double_at(row, *c.col) * c.scale;
}

struct StatsColumns {
  TimeColumn total, avg, med, min, max, sd;
  std::size_t calls = 0, percent = 0, name = 0;
};

StatsColumns columns_of(const CsvTable& t, bool nsys) {
  StatsColumns c;
  c.total = time_column(t, nsys ? "Total Time" : "TotalDurationNs");
  c.avg = time_column(t, nsys ? "Avg" : "AverageNs");
  c.med = time_column(t, "Med");
  c.min = time_column(t, nsys ? "Min" : "MinNs");
  c.max = time_column(t, nsys ? "Max" : "MaxNs");
  c.sd = time_column(t, "StdDev");
  c.calls = nsys ? (t.find("Instances") ? *t.find("Instances") : t.require("Count")) : t.require("Calls");
  c.percent = t.require(nsys ? "Time (%)" : "Percentage");
  c.name = nsys ? t.header().cells.size() - 1 : t.require("Name");  // nsys: Name or Operation, always last
  return c;
}

KernelStatsRow read_row(const CsvTable& t, const CsvRow& row, const StatsColumns& c) {
  KernelStatsRow r;
  r.name = t.text_at(row, c.name);
  r.calls = t.int_at(row, c.calls);
  r.total_ns = time_at(t, row, c.total).value_or(0);
  r.avg_ns = time_at(t, row, c.avg).value_or(0);
  r.percent = t.double_at(row, c.percent);
  r.median_ns = time_at(t, row, c.med);
  r.min_ns = time_at(t, row, c.min);
  r.max_ns = time_at(t, row, c.max);
  r.stddev_ns = time_at(t, row, c.sd);
  r.avg_text = c.avg.col ? t.text_at(row, *c.avg.col) : "";
  r.percent_text = t.text_at(row, c.percent);
  r.median_text = c.med.col ? t.text_at(row, *c.med.col) : "";
  r.stddev_text = c.sd.col ? t.text_at(row, *c.sd.col) : "";
  r.line = row.line;
  return r;
}

}  // namespace

bool has_kernel_stats_header(std::string_view head) {
  for (const CsvRow& row : split_csv(head)) {
    if (stats_header(row)) return true;
  }
  return false;
}

KernelStats parse_kernel_stats(std::string_view text, std::string_view source) {
  std::optional<CsvTable> parsed = read_csv_table(text, source, stats_header);
  if (!parsed) throw UserError(fmt::format("{}: not a kernel stats/summary CSV (no known header)", source));
  const CsvTable& t = *parsed;
  const bool nsys = nsys_header(t.header());
  const StatsColumns columns = columns_of(t, nsys);
  KernelStats stats{nsys ? "nsys" : "rocprof", {}};
  t.for_each_row([&](const CsvRow& row) { stats.rows.push_back(read_row(t, row, columns)); });
  return stats;
}

}  // namespace sb::trace
