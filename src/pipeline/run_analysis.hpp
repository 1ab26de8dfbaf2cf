#pragma once
// After a staircase: the knee as `servebench report` finds it, computed on the run's stages in
// memory (results::from_summaries, no read-back of the sweep document), stored in the document's
// `analysis` field by its one writer (RunOutputs::finish) and printed in one line, so a run answers
// "where does it stop scaling" on its own.
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analyze/analysis.hpp"
#include "metrics/stage_summary.hpp"
#include "results/from_summaries.hpp"
#include "results/model.hpp"

namespace sb::pipeline {

struct AnalysedRun {
  results::Run run;
  analyze::RunAnalysis analysis;
};

// The run's analysis; nullopt for fewer than 2 stages (no curve to judge).
std::optional<AnalysedRun> analyze_stages(const results::RunInfo& info, const std::vector<StageSummary>& stages);

// The `analysis` object of the sweep document.
nlohmann::ordered_json analysis_json(const AnalysedRun& a);

// "knee: concurrency 16 (31.85 req/s): <reason>" (or the reason there is none), after a blank line.
void print_knee(std::FILE* out, const AnalysedRun& a);

// The HTML report of the run. Throws sb::UserError if the file cannot be written.
void write_html(const std::string& path, const AnalysedRun& a);

// Hands the analysis of the document at `sweep_path` from RunOutputs::finish to analyze_sweep
// (this process only; a later keep for the same path replaces it).
void keep_analysis(const std::string& sweep_path, AnalysedRun a);

struct SweepAnalysisOptions {
  std::string sweep_path;     // the --output-json just written
  std::string html_path;      // "" = no HTML report
  bool print = true;          // print the knee line on stdout
};

// After run_pipeline: prints the knee line and writes the HTML report of the analysis RunOutputs
// kept for `sweep_path` (already in the document). Does nothing when none was kept (fewer than 2
// stages). Throws sb::UserError if the HTML file cannot be written.
void analyze_sweep(const SweepAnalysisOptions& opt);

}  // namespace sb::pipeline
