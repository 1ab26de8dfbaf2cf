#include "report/analysis_console.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "report/analysis_text.hpp"

namespace sb::report {
namespace {

using results::Metric;

std::string cell(std::optional<double> v, const char* spec = "{:.1f}") {
  return v ? fmt::format(fmt::runtime(spec), *v) : std::string("-");
}

std::string load_text(double v) { return std::isinf(v) ? "inf" : fmt::format("{:g}", v); }

std::string stage_table(const results::Run& run, const analyze::RunAnalysis& a) {
  std::string out = fmt::format("{:>8} {:>9} {:>10} {:>10} {:>10} {:>10} {:>10} {:>6}  {}\n",
                                run.load_mode == LoadMode::concurrency ? "conc" : "rate", "req/s", "out tok/s",
                                "TTFT p50", "TTFT p99", "TPOT p50", "ITL p99", "failed", "region");
  for (std::size_t i = 0; i < run.stages.size(); ++i) {
    const auto& s = run.stages[i];
    const bool knee = a.curve.knee && *a.curve.knee == i;
    out += fmt::format("{:>8} {:>9.2f} {:>10.1f} {:>10} {:>10} {:>10} {:>10} {:>6}  {}{}\n", load_text(s.load_value),
                       s.request_throughput, s.output_throughput, cell(s.percentile(Metric::ttft, 50)),
                       cell(s.percentile(Metric::ttft, 99)), cell(s.percentile(Metric::tpot, 50)),
                       cell(s.percentile(Metric::itl, 99)), s.failed,
                       i < a.curve.regions.size() ? to_string(a.curve.regions[i].region) : "", knee ? "  <- knee" : "");
  }
  return out;
}

std::string capacity_text(const results::Run& run, const analyze::RunAnalysis& a) {
  std::string out;
  if (a.replicas) {
    const auto& r = *a.replicas;
    out += fmt::format("capacity for {:g} req/s: ", r.target_qps);
    out += r.replicas_at_knee ? fmt::format("{} replicas at the knee ({:.2f} req/s each), ", *r.replicas_at_knee,
                                            *r.knee_rps)
                              : std::string("no knee, ");
    out += r.replicas_at_peak ? fmt::format("{} at the plateau peak ({:.2f} req/s each)\n", *r.replicas_at_peak,
                                            r.peak_rps)
                              : std::string("no throughput measured\n");
  }
  if (a.slo) {
    if (!a.slo->stage) {
      out += "SLO: " + report::goodput_source_text(*a.slo) + "\n";
    } else {
      out += fmt::format("SLO: highest level meeting every SLO: {} ({:.2f} req/s), goodput {} ({})\n",
                         load_text(run.stages[*a.slo->stage].load_value), a.slo->request_throughput,
                         cell(a.slo->goodput, "{:.2f} req/s"), report::goodput_source_text(*a.slo));
    }
  }
  return out;
}

}  // namespace

std::string text_chart(const std::string& title, const std::vector<std::string>& row_labels,
                       const std::vector<double>& values, int marked_row, int width) {
  std::string out = title + "\n";
  double max_v = 0;
  for (double v : values)
    if (std::isfinite(v)) max_v = std::max(max_v, v);
  for (std::size_t i = 0; i < values.size() && i < row_labels.size(); ++i) {
    const double v = std::isfinite(values[i]) ? values[i] : 0;
    const int bar = max_v > 0 ? static_cast<int>(std::lround(v / max_v * width)) : 0;
    out += fmt::format("{:>8} |{:<{}}| {:.1f}{}\n", row_labels[i], std::string(static_cast<std::size_t>(bar), '#'),
                       width, v, static_cast<int>(i) == marked_row ? "  <- knee" : "");
  }
  return out;
}

std::string console_report(const results::Run& run, const analyze::RunAnalysis& a) {
  std::string out = fmt::format("== {} ({}, {})\n", run.label, run.source, to_string(run.load_mode));
  out += stage_table(run, a);
  const int knee = a.curve.knee ? static_cast<int>(*a.curve.knee) : -1;
  // A bracket ("capacity ends between 8 and 16 ...") is in the reason; the stage named is its upper end.
  if (a.curve.knee)
    out += fmt::format("knee: {} = {} ({:.2f} req/s): {}\n", to_string(run.load_mode),
                       load_text(run.stages[*a.curve.knee].load_value),
                       run.stages[*a.curve.knee].request_throughput, report::knee_reason_text(a.curve));
  else
    out += "knee: " + report::knee_reason_text(a.curve) + "\n";
  if (a.curve.ttft_rise)
    out += fmt::format("TTFT rises steeply from {} = {}\n", to_string(run.load_mode),
                       load_text(run.stages[*a.curve.ttft_rise].load_value));
  for (std::size_t i = 0; i < a.curve.regions.size(); ++i)
    out += fmt::format("  {:>8}: {:<9} {}\n", load_text(run.stages[i].load_value),
                       to_string(a.curve.regions[i].region), report::region_reason_text(a.curve.regions[i]));
  out += capacity_text(run, a);
  std::vector<std::string> labels;
  std::vector<double> rps, ttft, tok;
  for (const auto& s : run.stages) {
    labels.push_back(load_text(s.load_value));
    rps.push_back(s.request_throughput);
    ttft.push_back(s.percentile(Metric::ttft, 99).value_or(NAN));
    tok.push_back(s.output_throughput);
  }
  out += "\n" + text_chart("requests/s", labels, rps, knee);
  out += "\n" + text_chart("TTFT p99 (ms)", labels, ttft, knee);
  out += "\n" + text_chart("output tokens/s", labels, tok, knee);
  for (const auto& line : report::warning_lines(a.warnings)) out += "warning: " + line + "\n";
  return out;
}

}  // namespace sb::report
