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

// The run's analysis; nullopt for fewer than 2 stages (no curve to judge). With repeats > 1 the
// stages of every pass (StageSummary::repeat) are analysed as repeated runs of one configuration:
// the curve is the first pass's, its warnings include their run-to-run variance.
std::optional<AnalysedRun> analyze_stages(const results::RunInfo& info, const std::vector<StageSummary>& stages,
                                          int repeats = 1);

// The `analysis` object of the sweep document.
nlohmann::ordered_json analysis_json(const AnalysedRun& a);

// "knee: concurrency 16 (31.85 req/s): <reason>" (or the reason there is none), after a blank line.
void print_knee(std::FILE* out, const AnalysedRun& a);

// The HTML report of the run. Throws sb::UserError if the file cannot be written.
void write_html(const std::string& path, const AnalysedRun& a);

}  // namespace sb::pipeline
