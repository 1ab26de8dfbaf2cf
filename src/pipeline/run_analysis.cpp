#include "pipeline/run_analysis.hpp"

#include <fmt/format.h>

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

std::optional<AnalysedRun> analyze_stages(const results::RunInfo& info, const std::vector<StageSummary>& stages) {
  if (stages.size() < 2) return std::nullopt;
  AnalysedRun a;
  a.run = results::from_summaries(info, stages);
  a.analysis = analyze::analyze_runs({a.run}, analyze::AnalyzeOptions{}).front();
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
