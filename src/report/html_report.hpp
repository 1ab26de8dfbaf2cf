#pragma once
// Self-contained HTML report (works offline): data as embedded JSON, uPlot (html_assets.hpp) for the
// charts, the page's script (html_report.js, embedded at build time) that draws the curves, the knee
// markers and the shaded regions. A reporter: it formats what it is given and computes nothing.
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace sb::report {

struct RunView {
  std::string label;
  std::vector<double> x;                               // load per stage (inf -> Document::unlimited_x)
  std::map<std::string, std::vector<double>> metrics;  // chart key -> value per stage (NaN = missing)
  std::optional<std::size_t> knee, ttft_rise;          // indices into x
  std::vector<std::string> regions;                    // "linear" | "plateau" | "decline" per stage
  std::vector<std::string> region_reasons;
  std::string knee_text;                               // one line: where and why (or "no knee ...")
  std::vector<std::vector<std::string>> table_rows;    // formatted stage table
  std::string config_json;                             // secrets already redacted
  std::vector<std::string> warnings;
};

struct Table {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
};

struct Document {
  std::string title = "servebench report";
  std::string x_label = "concurrency";
  bool log_x = false;                 // exponential staircases read better on a log axis
  std::optional<double> unlimited_x;  // x where stages with rate `inf` are drawn (axis label "inf")
  std::vector<std::string> table_header;
  std::vector<RunView> runs;
  std::optional<Table> comparison;    // compare: the before/after table
  std::vector<std::string> notes;     // compare: equivalence warnings, hints, gate results
};

// Chart keys the script knows (see html_report.js): request_throughput, output_throughput,
// total_token_throughput, ttft_p50, ttft_p99, tpot_p50, itl_p99, ttft_intended_p99 (open loop only).
std::string render(const Document& doc);

std::string escape(const std::string& text);  // HTML text/attribute escaping

}  // namespace sb::report
