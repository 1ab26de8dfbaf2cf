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

// How a delta was judged, or why it could not be (report/analysis_text.hpp words it).
enum class Judgement {
  not_in_both,            // the metric is missing from one of the results
  no_request_records,     // a run has no per-request records
  no_request_values,      // no per-request values behind this metric (ITL, unknown names)
  open_loop_throughput,   // open-loop throughput is set by the offered rate
  too_few_samples,        // fewer than 2 successful requests at a stage
  bootstrap,              // bootstrap CI of the metric's statistic
  bootstrap_littles_law,  // throughput: bootstrap CI of mean E2EL (closed loop, Little's law)
};

struct MetricDelta {
  std::string metric;
  bool higher_is_better = false;
  std::optional<double> baseline, tuned;
  double abs_change = NAN, rel_change = NAN;  // tuned - baseline; relative to baseline (NaN if 0)
  Significance significance = Significance::cannot_judge;
  std::optional<Interval> ci;                 // CI of the difference of the statistic
  Judgement judgement = Judgement::not_in_both;
  double confidence = 0;                      // of `ci`
};

// Why the runs may not be comparable.
struct WorkloadDifference {
  enum class Kind { load_mode, model, backend, dataset, request_count, input_length, output_length };
  Kind kind = Kind::model;
  std::string baseline_text{}, tuned_text{};  // load_mode, model, backend, dataset
  double baseline = 0, tuned = 0;             // request count, or delivered tokens per request
  std::vector<double> loads{};                // per-stage kinds: the loads it was seen at, first-seen order
};

// What the change suggests, read at the most loaded matched stage.
enum class Hint {
  throughput_without_queueing,  // RPS up but TTFT not down: consider chunked prefill
  scheduling_not_compute,       // TTFT down but RPS flat: more GPUs or lower precision
  decode_bound,                 // TTFT fine but TPOT higher
};

struct StageComparison {
  double load_value = 0;
  std::size_t baseline_stage = 0, tuned_stage = 0;  // indices into run.stages
  std::vector<MetricDelta> deltas;
};

// Where the headline (the first table of compare) is read, and why there.
enum class HeadlineBasis {
  named_load,     // compare --at LOAD
  baseline_knee,  // the baseline's knee, matched in the tuned run
  tuned_knee,     // the tuned run's knee (the baseline has none that is matched)
  most_loaded,    // no knee matched in both: the most loaded matched stage
};

// A kernel's mean duration in both runs' traces (compare --traces), the top ones by baseline time.
struct KernelDelta {
  std::string name;
  double baseline_mean_ns = NAN, tuned_mean_ns = NAN;
  double rel_change = NAN;
  Significance significance = Significance::cannot_judge;  // Welch CI of the mean difference
  std::optional<Interval> ci{};                            // ns
};

// One kernel of a trace as compare needs it (the trace layer's ranking, reduced).
struct KernelSummary {
  std::string name;
  long long calls = 0;
  double mean_ns = 0, stddev_ns = 0, total_ns = 0;
};

struct Headline {
  std::size_t stage = 0;  // index into Comparison::stages
  HeadlineBasis basis = HeadlineBasis::most_loaded;
  std::vector<MetricDelta> deltas{};  // headline_metrics(), in order
  std::vector<KernelDelta> kernels{}; // empty without traces
};

struct Comparison {
  LoadMode load_mode = LoadMode::concurrency;
  std::vector<StageComparison> stages;
  std::vector<double> unmatched_loads;       // in one run only
  std::vector<WorkloadDifference> equivalence;  // why the runs may not be comparable
  std::vector<Hint> hints;
  std::optional<double> baseline_knee_load, tuned_knee_load;
  double baseline_peak_rps = 0, tuned_peak_rps = 0;
  std::optional<Headline> headline;          // absent when no stage matched
};

// Metrics compared by default (names accepted by results::Stage::value).
const std::vector<std::string>& default_compare_metrics();
bool higher_is_better(const std::string& metric);
// The headline's rows: request throughput, TTFT p99, TPOT p50, E2EL p99 (the seeds' table).
const std::vector<std::string>& headline_metrics();

struct CompareInput {
  const results::Run& baseline;
  const results::Run& tuned;
  const CurveAnalysis& baseline_curve;
  const CurveAnalysis& tuned_curve;
  std::vector<std::string> metrics = default_compare_metrics();
  BootstrapParams bootstrap;
  std::optional<double> headline_load{};  // --at: read the headline here instead of at the knee
  const std::vector<KernelSummary>* baseline_kernels = nullptr;  // ranked by total time, desc
  const std::vector<KernelSummary>* tuned_kernels = nullptr;
  std::size_t top_kernels = 5;
};

// Throws sb::UserError naming --at when headline_load is not a stage of both runs.
Comparison compare_runs(const CompareInput& in);

// The baseline's top `top` kernels by total time, each with its mean in both lists and Welch's
// significance (compare --traces; tune per stage).
std::vector<KernelDelta> kernel_deltas(const std::vector<KernelSummary>& baseline,
                                       const std::vector<KernelSummary>& tuned, std::size_t top);

// The per-request field behind a metric name ("ttft", "tpot", "e2el"), or "" if there is none.
std::string request_field_of(const std::string& metric);

}  // namespace sb::analyze
