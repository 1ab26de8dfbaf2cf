#include "report/html_view.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "report/analysis_text.hpp"
#include "report/server_side_text.hpp"
#include "report/time_scale_text.hpp"
#include "report/workload_text.hpp"

namespace sb::report {
namespace {

using results::Metric;

std::optional<double> server_gauge_mean(const results::Stage& s, std::optional<GaugeStats> ServerStageMetrics::*field) {
  if (!s.server || !((*s.server).*field)) return std::nullopt;
  return ((*s.server).*field)->mean;
}

// Mean over the stage's GPUs of each GPU's mean utilisation: one line however many GPUs.
std::optional<double> gpu_utilization_mean(const results::Stage& s) {
  if (!s.gpu) return std::nullopt;
  double total = 0;
  int n = 0;
  for (const GpuStageStats& g : s.gpu->gpus) {
    if (!g.utilization_pct) continue;
    total += g.utilization_pct->mean;
    ++n;
  }
  if (n == 0) return std::nullopt;
  return total / n;
}

// The series the chart script draws (html_report.hpp), by the key it knows them by.
struct ChartSeries {
  const char* key;
  std::optional<double> (*value)(const results::Stage&);
};

constexpr ChartSeries kChartSeries[] = {
    {"request_throughput", [](const results::Stage& s) -> std::optional<double> { return s.request_throughput; }},
    {"output_throughput", [](const results::Stage& s) -> std::optional<double> { return s.output_throughput; }},
    {"total_token_throughput",
     [](const results::Stage& s) -> std::optional<double> { return s.total_token_throughput; }},
    {"ttft_p50", [](const results::Stage& s) { return s.percentile(Metric::ttft, 50); }},
    {"ttft_p99", [](const results::Stage& s) { return s.percentile(Metric::ttft, 99); }},
    {"tpot_p50", [](const results::Stage& s) { return s.percentile(Metric::tpot, 50); }},
    {"itl_p99", [](const results::Stage& s) { return s.percentile(Metric::itl, 99); }},
    {"ttft_intended_p99", [](const results::Stage& s) { return s.ttft_from_intended_p99_ms; }},
    // --scrape-metrics and --gpu-telemetry (charted only when some run has them: server_charts)
    {"server_running_mean", [](const results::Stage& s) { return server_gauge_mean(s, &ServerStageMetrics::running); }},
    {"server_waiting_mean", [](const results::Stage& s) { return server_gauge_mean(s, &ServerStageMetrics::waiting); }},
    {"gpu_utilization_mean", gpu_utilization_mean},
};

// `servebench demo` (or a user's `--metadata sim_time_scale=K`) records that the simulator ran K times
// faster than the GPU it models (docs/results-format.md): the run's latencies are K times shorter
// than that GPU's and must not be read as its figures.
std::string time_scale_note(const results::Run& run) {
  // Sweeps of this version say what the server advertised and what the run applied.
  if (run.server_time_scale != 1) return format_time_scale_page_note(run.label, run.server_time_scale, run.time_factor);
  const auto cfg = nlohmann::json::parse(run.config_json, nullptr, /*allow_exceptions=*/false);
  if (cfg.is_discarded() || !cfg.is_object()) return "";
  const auto meta = cfg.find("metadata");
  if (meta == cfg.end() || !meta->is_object()) return "";
  const auto it = meta->find("sim_time_scale");
  if (it == meta->end()) return "";
  double scale = NAN;
  if (it->is_number()) scale = it->get<double>();
  if (it->is_string()) {  // --metadata values are strings, as in vLLM
    const std::string& text = it->get_ref<const std::string&>();
    char* end = nullptr;
    scale = std::strtod(text.c_str(), &end);
    if (end == text.c_str() || *end != '\0') scale = NAN;
  }
  if (!(scale > 0) || !std::isfinite(scale) || scale == 1) return "";
  std::string gpu = "GPU";
  if (const auto g = meta->find("sim_gpu"); g != meta->end() && g->is_string() && !g->get<std::string>().empty()) {
    gpu = g->get<std::string>();
    std::transform(gpu.begin(), gpu.end(), gpu.begin(), [](unsigned char c) { return std::toupper(c); });
  }
  const bool faster = scale > 1;
  const double k = faster ? scale : 1 / scale;
  return fmt::format("{}: simulated GPU, {:g}x {} than the modelled {}: latencies here are {:g}x {} and rates {:g}x {} "
                     "than that GPU's ({} latencies by {:g} for its figures).",
                     run.label, k, faster ? "faster" : "slower", gpu, k, faster ? "shorter" : "longer", k,
                     faster ? "higher" : "lower", faster ? "multiply" : "divide", k);
}

// Stages whose outputs fell short (or streamed no text), named by their load.
void add_output_warnings(const results::Run& run, RunView& v) {
  for (const auto& s : run.stages) {
    if (!s.output_check) continue;
    const std::string value = std::isinf(s.load_value) ? "inf" : fmt::format("{:g}", s.load_value);
    const std::string label = run.load_mode == LoadMode::concurrency ? "c=" + value : "rate " + value;
    // Sample counts are not in the model: a stage with text-less streams is flagged without them.
    for (std::string& line : output_check_lines(*s.output_check, label, 1, 1)) v.warnings.push_back(std::move(line));
  }
}

std::string html_stage_label(const results::Run& run, const results::Stage& s) {
  const std::string value = std::isinf(s.load_value) ? "inf" : fmt::format("{:g}", s.load_value);
  return run.load_mode == LoadMode::concurrency ? "c=" + value : "rate " + value;
}

// Stages served mostly from the server's prompt cache: their TTFT measures the cache.
void add_prompt_cache_warnings(const results::Run& run, RunView& v) {
  for (const auto& s : run.stages) {
    if (!s.prompt_cache || !s.prompt_cache->mostly_cached) continue;
    const auto lines = prompt_cache_lines(*s.prompt_cache, html_stage_label(run, s));
    v.warnings.push_back(lines.back());
  }
}

// The table's TTFT split column, only when some stage of some run has one (a server reported
// timings): "prefill + rest" means in ms, "-" for stages without.
void add_ttft_split_column(const std::vector<results::Run>& runs, Document& d) {
  const auto has = [](const results::Run& r) {
    return std::any_of(r.stages.begin(), r.stages.end(), [](const auto& s) { return s.ttft_breakdown.has_value(); });
  };
  if (std::none_of(runs.begin(), runs.end(), has)) return;
  d.table_header.push_back("TTFT server prefill + rest (mean ms)");
  for (std::size_t r = 0; r < runs.size(); ++r) {
    auto& rows = d.runs[r].table_rows;
    for (std::size_t i = 0; i < rows.size() && i < runs[r].stages.size(); ++i) {
      const auto& b = runs[r].stages[i].ttft_breakdown;
      rows[i].push_back(b ? fmt::format("{:.2f} + {:.2f}", b->server_prefill_mean_ms, b->rest_mean_ms) : "-");
    }
  }
}

std::string num(std::optional<double> v) { return v ? fmt::format("{:.2f}", *v) : "-"; }

// Three to five digits, enough to read a change by: 15574, 243.3, 17.7, 0.82.
std::string short_num(std::optional<double> v) {
  if (!v) return "-";
  const double a = std::fabs(*v);
  return fmt::format("{:.{}f}", *v, a >= 1000 ? 0 : a >= 10 ? 1 : 2);
}

std::string knee_text(const results::Run& run, const analyze::CurveAnalysis& c) {
  if (!c.knee) return report::knee_reason_text(c);
  return fmt::format("knee at {} {:g} ({:.2f} req/s)", to_string(run.load_mode), run.stages[*c.knee].load_value,
                     run.stages[*c.knee].request_throughput);
}

// A stage with an unlimited rate has no place on a numeric axis: it is drawn at `unlimited_x` (one
// step past the highest tested rate, labelled "inf" by the page) so the curve still shows where the
// server ends up when nothing holds the load back. Without such a stand-in it stays in the table only.
RunView run_view(const results::Run& run, const analyze::RunAnalysis& a, std::optional<double> unlimited_x) {
  RunView v;
  v.label = run.label;
  v.knee_text = knee_text(run, a.curve);
  v.config_json = run.config_json;
  v.scale_note = time_scale_note(run);
  v.warnings = report::warning_lines(a.warnings);
  add_output_warnings(run, v);
  add_prompt_cache_warnings(run, v);
  for (std::size_t i = 0; i < run.stages.size(); ++i) {
    const auto& s = run.stages[i];
    const std::string region = i < a.curve.regions.size() ? to_string(a.curve.regions[i].region) : "";
    v.table_rows.push_back({std::isinf(s.load_value) ? "inf" : fmt::format("{:g}", s.load_value),
                            fmt::format("{:.2f}", s.request_throughput), fmt::format("{:.1f}", s.output_throughput),
                            num(s.percentile(Metric::ttft, 50)), num(s.percentile(Metric::ttft, 99)),
                            num(s.percentile(Metric::tpot, 50)), num(s.percentile(Metric::itl, 99)),
                            std::to_string(s.failed), region});
    if (i < a.curve.regions.size()) v.region_reasons.push_back(report::region_reason_text(a.curve.regions[i]));
    const bool finite = std::isfinite(s.load_value);
    if (!finite && !unlimited_x) continue;
    if (a.curve.knee && *a.curve.knee == i) v.knee = v.x.size();
    if (a.curve.ttft_rise && *a.curve.ttft_rise == i) v.ttft_rise = v.x.size();
    v.x.push_back(finite ? s.load_value : *unlimited_x);
    v.regions.push_back(region);
    for (const ChartSeries& c : kChartSeries) v.metrics[c.key].push_back(c.value(s).value_or(NAN));
  }
  return v;
}

// Rate sweeps ending in `inf`: the stand-in x is twice the highest finite rate of any run (one more
// step of the usual doubling staircase), or 1 when no run has a finite rate.
std::optional<double> unlimited_position(const std::vector<results::Run>& runs) {
  bool any_inf = false;
  double hi = 0;
  for (const auto& r : runs) {
    for (const auto& s : r.stages) {
      if (std::isinf(s.load_value)) any_inf = true;
      else hi = std::max(hi, s.load_value);
    }
  }
  if (!any_inf) return std::nullopt;
  return hi > 0 ? 2 * hi : 1.0;
}

bool any_stage(const std::vector<results::Run>& runs, bool (*has)(const results::Stage&)) {
  for (const auto& r : runs)
    for (const auto& s : r.stages)
      if (has(s)) return true;
  return false;
}

// The server's own view and the GPUs' (--scrape-metrics, --gpu-telemetry), for runs that have them.
void add_telemetry_charts(const std::vector<results::Run>& runs, std::vector<ChartSpec>& charts) {
  if (any_stage(runs, [](const results::Stage& s) { return s.server.has_value(); }))
    charts.push_back({"server", "Server batch and queue", "requests (server /metrics, mean)", "",
                      {{"server_running_mean", "running"}, {"server_waiting_mean", "waiting"}}});
  if (any_stage(runs, [](const results::Stage& s) { return s.gpu.has_value(); }))
    charts.push_back({"gpu", "GPU utilisation", "utilisation (%, mean over GPUs)", "%",
                      {{"gpu_utilization_mean", "GPU"}}});
}

}  // namespace

// Metrics by load, one row per metric (in the comparison's order), one column per matched load: a
// cell reads "baseline -> tuned (change)", "*" when the change is significant. A table a reader
// scans in seconds, instead of one row per (load, metric).
Table compare_pivot(const analyze::Comparison& c) {
  Table t;
  t.header = {"metric"};
  std::vector<std::string> metrics;
  for (const auto& sc : c.stages) {
    t.header.push_back(fmt::format("{}{:g}", c.load_mode == LoadMode::request_rate ? "rate " : "c=", sc.load_value));
    for (const auto& m : sc.deltas)
      if (std::find(metrics.begin(), metrics.end(), m.metric) == metrics.end()) metrics.push_back(m.metric);
  }
  for (const auto& name : metrics) {
    std::vector<std::string> row{name};
    for (const auto& sc : c.stages) {
      const auto m = std::find_if(sc.deltas.begin(), sc.deltas.end(), [&](const auto& d) { return d.metric == name; });
      if (m == sc.deltas.end()) {
        row.push_back("-");
        continue;
      }
      // + 0.0 after rounding: a change that rounds to zero reads "+0%", never "-0%".
      const std::string rel =
          std::isnan(m->rel_change) ? "" : fmt::format(" ({:+.0f}%)", std::round(100 * m->rel_change) + 0.0);
      const char* mark = m->significance == analyze::Significance::significant ? " *" : "";
      row.push_back(short_num(m->baseline) + " \u2192 " + short_num(m->tuned) + rel + mark);
    }
    t.rows.push_back(std::move(row));
  }
  t.caption = "each cell: baseline \u2192 tuned (change); * = significant (the bootstrap interval of the change "
              "excludes 0); unmarked: not significant, or not judged without per-request data";
  return t;
}

// The charts, in page order, over the keys above. A new series: a row in kChartSeries, its key here.
std::vector<ChartSpec> chart_specs() {
  return {
      {"rps", "Requests/s", "throughput (req/s)", "req/s", {{"request_throughput", "RPS"}}},
      {"tokens", "Tokens/s", "throughput (tok/s)", "tok/s",
       {{"output_throughput", "output"}, {"total_token_throughput", "total"}}},
      {"ttft", "TTFT", "time to first token (ms)", "ms", {{"ttft_p50", "p50"}, {"ttft_p99", "p99"}}},
      {"tpot", "TPOT p50", "time per output token (ms)", "ms", {{"tpot_p50", "p50"}}},
      {"itl", "ITL p99", "inter-token latency (ms)", "ms", {{"itl_p99", "p99"}}},
  };
}

Document html_document(const std::vector<results::Run>& runs, const std::vector<analyze::RunAnalysis>& analyses) {
  Document d;
  const bool by_rate = !runs.empty() && runs[0].load_mode == LoadMode::request_rate;
  d.x_label = by_rate ? "request rate (req/s)" : "concurrency";
  d.x_short = by_rate ? "rate " : "c=";
  d.charts = chart_specs();
  add_telemetry_charts(runs, d.charts);
  // Open loop: TTFT from the intended send time (client queueing included) beside vLLM's.
  if (by_rate)
    for (ChartSpec& c : d.charts)
      if (c.id == "ttft") c.series.push_back({"ttft_intended_p99", "p99 from intended send"});
  d.table_header = {"load", "req/s", "out tok/s", "TTFT p50", "TTFT p99", "TPOT p50", "ITL p99", "failed", "region"};
  d.unlimited_x = unlimited_position(runs);
  double lo = INFINITY, hi = 0;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    d.runs.push_back(run_view(runs[i], analyses[i], d.unlimited_x));
    for (double x : d.runs.back().x) lo = std::min(lo, x), hi = std::max(hi, x);
  }
  d.log_x = lo > 0 && hi / lo >= 16;
  add_ttft_split_column(runs, d);
  return d;
}

Document html_compare_document(const std::vector<results::Run>& runs, const std::vector<analyze::RunAnalysis>& analyses,
                                     const analyze::Comparison& c, const GateResult& gate) {
  Document d = html_document(runs, analyses);
  d.title = "servebench compare";
  d.comparison = compare_pivot(c);
  auto knee = [](const std::optional<double>& v) { return v ? fmt::format("{:g}", *v) : std::string("none in range"); };
  d.notes.push_back(fmt::format("knee: {} -> {}; peak req/s: {:.2f} -> {:.2f}", knee(c.baseline_knee_load),
                                knee(c.tuned_knee_load), c.baseline_peak_rps, c.tuned_peak_rps));
  for (const auto& e : c.equivalence) d.notes.push_back("not comparable: " + report::difference_text(e));
  for (const auto h : c.hints) d.notes.push_back("hint: " + report::hint_text(h));
  for (const auto& v : gate.violations) d.notes.push_back("FAIL " + v.rule + ": " + report::violation_text(v));
  return d;
}

}  // namespace sb::report
