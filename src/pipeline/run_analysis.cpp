#include "pipeline/run_analysis.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <utility>

#include "core/error.hpp"
#include "report/analysis_json.hpp"
#include "report/atomic_file.hpp"
#include "report/analysis_text.hpp"
#include "report/html_report.hpp"
#include "report/html_view.hpp"

namespace sb::pipeline {

namespace {

std::string load_label(const results::Run& run, const results::Stage& s) {
  if (run.load_mode == LoadMode::request_rate) return fmt::format("request rate {:g} req/s", s.load_value);
  return fmt::format("concurrency {:g}", s.load_value);
}

}  // namespace

std::optional<AnalysedRun> analyze_stages(const results::RunInfo& info, const std::vector<StageSummary>& stages,
                                          int repeats) {
  // --repeats: each pass is one run of the same configuration, so analyze_runs compares them
  // (variance warnings); the knee and regions are those of the first pass.
  std::vector<std::vector<StageSummary>> passes(static_cast<std::size_t>(std::max(repeats, 1)));
  for (const StageSummary& s : stages)
    if (s.repeat >= 0 && static_cast<std::size_t>(s.repeat) < passes.size()) passes[s.repeat].push_back(s);
  if (passes.front().size() < 2) return std::nullopt;
  std::vector<results::Run> runs;
  for (const auto& pass : passes)
    if (!pass.empty()) runs.push_back(results::from_summaries(info, pass));
  AnalysedRun a;
  a.run = runs.front();
  a.analysis = analyze::analyze_runs(runs, analyze::AnalyzeOptions{}).front();
  return a;
}

nlohmann::ordered_json analysis_json(const AnalysedRun& a) { return report::run_analysis_json(a.run, a.analysis); }

void print_knee(std::FILE* out, const AnalysedRun& a) {
  const auto& curve = a.analysis.curve;
  if (curve.knee && *curve.knee < a.run.stages.size()) {
    const results::Stage& k = a.run.stages[*curve.knee];
    std::fprintf(out, "\nknee: %s (%.2f req/s): %s\n", load_label(a.run, k).c_str(), k.request_throughput,
                 report::knee_reason_text(curve).c_str());
  } else {
    // The reason already says why there is none ("no knee within the tested range: ...").
    std::fprintf(out, "\nknee: %s\n", report::knee_reason_text(curve).c_str());
  }
}

void write_html(const std::string& path, const AnalysedRun& a) {
  const std::vector<results::Run> runs{a.run};
  report::write_file_atomic(path, report::render(report::html_document(runs, {a.analysis})));
}

}  // namespace sb::pipeline
