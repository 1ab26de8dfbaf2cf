#include "pipeline/run_analysis.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "analyze/analysis.hpp"
#include "report/analysis_json.hpp"
#include "report/html_view.hpp"
#include "core/error.hpp"
#include "report/html_report.hpp"
#include "results/result_reader.hpp"
#include "report/sweep_json.hpp"

namespace sb::pipeline {

namespace {

std::string load_label(const results::Run& run, const results::Stage& s) {
  if (run.load_mode == "request_rate") return fmt::format("request rate {:g} req/s", s.load_value);
  return fmt::format("concurrency {:g}", s.load_value);
}

void print_knee(const results::Run& run, const analyze::CurveAnalysis& curve) {
  if (curve.knee && *curve.knee < run.stages.size()) {
    const results::Stage& k = run.stages[*curve.knee];
    std::printf("\nknee: %s (%.2f req/s): %s\n", load_label(run, k).c_str(), k.request_throughput,
                curve.knee_reason.c_str());
  } else {
    // The reason already says why there is none ("no knee within the tested range: ...").
    std::printf("\nknee: %s\n", curve.knee_reason.c_str());
  }
}

// Puts the analysis into the sweep document, keeping every other key and its order.
void embed_analysis(const std::string& path, const nlohmann::ordered_json& analysis) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  nlohmann::ordered_json doc = nlohmann::ordered_json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  if (!in || doc.is_discarded()) throw UserError(fmt::format("{}: cannot read back the sweep document", path));
  doc["analysis"] = analysis;
  write_sweep_json(path, doc);
}

}  // namespace

void analyze_sweep(const SweepAnalysisOptions& opt) {
  const std::vector<results::Run> runs = results::read_runs({opt.sweep_path});
  if (runs.empty() || runs.front().stages.size() < 2) return;
  const std::vector<analyze::RunAnalysis> analyses = analyze::analyze_runs(runs, analyze::AnalyzeOptions{});
  if (opt.print) print_knee(runs.front(), analyses.front().curve);
  embed_analysis(opt.sweep_path, analyze::run_analysis_json(runs.front(), analyses.front()));
  if (opt.html_path.empty()) return;
  std::ofstream html(opt.html_path, std::ios::binary);
  if (!html || !(html << html::render(analyze::html_document(runs, analyses))))
    throw UserError(fmt::format("cannot write {}", opt.html_path));
}

}  // namespace sb::pipeline
