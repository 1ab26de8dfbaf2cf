#pragma once
// Self-contained HTML report (works offline): data as embedded JSON, uPlot (html_assets.hpp) for the
// charts, the page's script (html_report.js, embedded at build time) that draws the curves, the knee
// markers and the shaded regions. A reporter: it formats what it is given and computes nothing.
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <utility>
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
  std::string scale_note;                              // "" unless latencies are in scaled time (demo)
  std::vector<std::vector<std::string>> table_rows;    // formatted stage table
  std::string config_json;                             // secrets already redacted
  std::vector<std::string> warnings;
};

// One chart of the page: which metric keys it overlays (RunView::metrics), under which legend names.
// Adding a series to the report = a key in RunView::metrics plus an entry here (html_view.cpp).
struct ChartSpec {
  std::string id;       // element id "chart-<id>"
  std::string title;
  std::string y_label;  // with the unit: "TTFT (ms)"
  std::string unit;     // after legend values: "ms"
  std::vector<std::pair<std::string, std::string>> series;  // metric key, legend name ("p99")
};

struct Table {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  std::string caption;  // how to read a cell; "" for none
};

// A scatter drawn as inline SVG (tune's Pareto view): points coloured by series (the run palette),
// dominated ones hollow. Coordinates as given; axes from 0 to the largest value.
struct ScatterPoint {
  std::size_t series = 0;  // index into Scatter::series and the palette
  std::string label;       // tooltip: "max_num_seqs=128 c=16"
  double x = 0, y = 0;
  bool dominated = false;
};

struct Scatter {
  std::string title, x_label, y_label;
  std::vector<std::string> series;
  std::vector<ScatterPoint> points;
};

struct Document {
  std::string title = "servebench report";
  std::string x_label = "concurrency";
  std::string x_short = "c=";         // before a load value in the legend: "c=16", "rate 16"
  std::vector<ChartSpec> charts;      // in page order
  bool log_x = false;                 // exponential staircases read better on a log axis
  std::optional<double> unlimited_x;  // x where stages with rate `inf` are drawn (axis label "inf")
  std::vector<std::string> table_header;
  std::vector<RunView> runs;
  std::optional<Table> comparison;    // compare: the before/after table
  std::vector<Table> tables;          // tune: more tables after it (each headed by its caption)
  std::optional<Scatter> scatter;     // tune: the Pareto view, after the tables
  std::vector<std::string> notes;     // compare: equivalence warnings, hints, gate results
};

// The page: title, comparison and notes, then the chart set (headed by the scale notes and one knee
// sentence per run, the charts drawn by html_report.js), then one section per run with its table.
// Chart keys the script knows (see html_report.js): request_throughput, output_throughput,
// total_token_throughput, ttft_p50, ttft_p99, tpot_p50, itl_p99, ttft_intended_p99 (open loop only).
std::string render(const Document& doc);

std::string escape(const std::string& text);  // HTML text/attribute escaping

}  // namespace sb::report
