#pragma once
// Baseline vs tuned: stages matched by load value, per-metric deltas with bootstrap significance
// (from per-request records when both runs have them), knee and capacity shift, workload-equivalence
// checks and interpretation hints.
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "analyze/bootstrap.hpp"
#include "analyze/knee.hpp"
#include "results/model.hpp"

namespace sb::analyze {

enum class Significance { significant, not_significant, cannot_judge };
const char* to_string(Significance s) noexcept;

struct MetricDelta {
  std::string metric;
  bool higher_is_better = false;
  std::optional<double> baseline, tuned;
  double abs_change = NAN, rel_change = NAN;  // tuned - baseline; relative to baseline (NaN if 0)
  Significance significance = Significance::cannot_judge;
  std::optional<Interval> ci;                 // CI of the difference of the statistic
  std::string note;                           // how it was judged, or why it could not be
};

struct StageComparison {
  double load_value = 0;
  std::size_t baseline_stage = 0, tuned_stage = 0;  // indices into run.stages
  std::vector<MetricDelta> deltas;
};

struct Comparison {
  std::string load_mode;
  std::vector<StageComparison> stages;
  std::vector<double> unmatched_loads;       // in one run only
  std::vector<std::string> equivalence;      // why the runs may not be comparable
  std::vector<std::string> hints;
  std::optional<double> baseline_knee_load, tuned_knee_load;
  double baseline_peak_rps = 0, tuned_peak_rps = 0;
};

// Metrics compared by default (names accepted by results::Stage::value).
const std::vector<std::string>& default_compare_metrics();
bool higher_is_better(const std::string& metric);

struct CompareInput {
  const results::Run& baseline;
  const results::Run& tuned;
  const CurveAnalysis& baseline_curve;
  const CurveAnalysis& tuned_curve;
  std::vector<std::string> metrics = default_compare_metrics();
  BootstrapParams bootstrap;
};

Comparison compare_runs(const CompareInput& in);

// The per-request field behind a metric name ("ttft", "tpot", "e2el"), or "" if there is none.
std::string request_field_of(const std::string& metric);

}  // namespace sb::analyze
