#include "report/csv_table.hpp"

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include <fmt/format.h>

#include "core/error.hpp"
#include "report/atomic_file.hpp"

namespace sb::report {
namespace {

constexpr std::string_view kRecordEnd = "\r\n";  // RFC 4180 §2.1

struct Metric {
  const char* name;
  const MetricStats StageSummary::*stats;
};
constexpr std::array<Metric, 4> kMetrics = {{{"ttft", &StageSummary::ttft},
                                             {"tpot", &StageSummary::tpot},
                                             {"itl", &StageSummary::itl},
                                             {"e2el", &StageSummary::e2el}}};
constexpr std::array<double, 4> kPercentiles = {50, 90, 95, 99};

std::vector<std::string> header() {
  std::vector<std::string> cols = {"stage_index",      "load_mode",          "load_value",
                                   "request_rate",     "max_concurrency",    "completed",
                                   "failed",           "duration_s",         "request_throughput",
                                   "output_throughput", "total_token_throughput"};
  for (const Metric& m : kMetrics) {
    cols.push_back(fmt::format("mean_{}_ms", m.name));
    cols.push_back(fmt::format("median_{}_ms", m.name));
    for (double p : kPercentiles) cols.push_back(fmt::format("p{:g}_{}_ms", p, m.name));
  }
  cols.emplace_back("schedule_lag_p99_ms");
  cols.emplace_back("in_flight_mean");
  return cols;
}

// Shortest text that reads back to the same double; "inf" for the unlimited rate.
std::string number(double v) { return fmt::format("{}", v); }

const char* mode_name(LoadMode mode) { return mode == LoadMode::concurrency ? "concurrency" : "request_rate"; }

// The swept value, as the staircase table shows it: the limit in concurrency mode, else the rate.
std::string load_value(LoadMode mode, const StageSummary& s) {
  if (mode == LoadMode::concurrency && s.load.max_concurrency) return std::to_string(*s.load.max_concurrency);
  return number(s.load.request_rate);
}

std::vector<std::string> row(LoadMode mode, const StageSummary& s) {
  std::vector<std::string> cells = {
      std::to_string(s.stage_index),
      mode_name(mode),
      load_value(mode, s),
      number(s.load.request_rate),
      s.load.max_concurrency ? std::to_string(*s.load.max_concurrency) : "",
      std::to_string(s.completed),
      std::to_string(s.failed),
      number(s.duration_s),
      number(s.request_throughput),
      number(s.output_throughput),
      number(s.total_token_throughput)};
  for (const Metric& m : kMetrics) {
    const MetricStats& st = s.*m.stats;
    cells.push_back(number(st.mean_ms));
    cells.push_back(number(st.median_ms));
    for (double p : kPercentiles) cells.push_back(number(st.percentile_ms(p)));
  }
  cells.push_back(s.schedule_lag ? number(s.schedule_lag->p99_ms) : "");
  cells.push_back(number(s.in_flight_mean));
  return cells;
}

void append_record(std::string& out, const std::vector<std::string>& cells) {
  for (std::size_t i = 0; i < cells.size(); ++i) {
    if (i > 0) out += ',';
    append_csv_field(out, cells[i]);
  }
  out += kRecordEnd;
}

}  // namespace

void append_csv_field(std::string& out, std::string_view field) {
  if (field.find_first_of(",\"\r\n") == std::string_view::npos) {
    out += field;
    return;
  }
  out += '"';
  for (char c : field) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
}

std::string format_csv_table(LoadMode mode, const std::vector<StageSummary>& stages) {
  std::string out;
  append_record(out, header());
  for (const StageSummary& s : stages) append_record(out, row(mode, s));
  return out;
}

void write_csv_file(const std::string& path, std::string_view text) {
  const int err = try_write_file_atomic(path, text);
  if (err != 0)
    throw UserError(fmt::format("--csv: cannot write {}: {}", path, std::strerror(err)), ExitCode::write_failed);
}

}  // namespace sb::report
