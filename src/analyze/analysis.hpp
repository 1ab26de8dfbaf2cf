#pragma once
// Everything `servebench report` says about one run: curve (knee, regions), warnings, capacity
// answers. Built from results::Run; formatted by analysis_json / console / the HTML builder.
#include <optional>
#include <vector>

#include "analyze/capacity.hpp"
#include "analyze/knee.hpp"
#include "analyze/warnings.hpp"
#include "results/model.hpp"

namespace sb::analyze {

struct AnalyzeOptions {
  KneeParams knee;
  std::optional<double> target_qps;   // --target-qps
  std::vector<Slo> slos;              // --slo
  double cv_limit = 0.20;             // variance flag for repeated runs
};

struct RunAnalysis {
  CurveAnalysis curve;
  std::vector<Warning> warnings;
  std::optional<ReplicaPlan> replicas;
  std::optional<SloAnswer> slo;
};

RunAnalysis analyze_run(const results::Run& run, const AnalyzeOptions& opt);

// One analysis per run, with variance warnings across repeated runs added.
std::vector<RunAnalysis> analyze_runs(const std::vector<results::Run>& runs, const AnalyzeOptions& opt);

// TTFT series used for the steep-rise point: p99 where present, else median.
std::vector<double> ttft_series(const results::Run& run);

}  // namespace sb::analyze
