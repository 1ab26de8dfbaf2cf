#pragma once
// Warnings a reader must see before trusting a curve: client saturation, failures, percentiles
// backed by too few samples, and run-to-run variance of repeated runs of one configuration.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "results/model.hpp"

namespace sb::analyze {

enum class WarningKind { aborted, note, client_saturated, client_concurrency_limit, failures, few_samples, variance };
const char* to_string(WarningKind k) noexcept;  // the JSON `kind`: "aborted", "client_saturated", ...

// One warning and the numbers behind it (report/analysis_text.hpp words it); only the fields of its
// kind are set.
struct Warning {
  WarningKind kind = WarningKind::note;
  int stage = -1;                  // index into run.stages, -1 for the whole run
  std::string note{};              // note: what the reader found missing (results::Run::notes)
  double lag_p99_ms = 0;           // client_saturated, client_concurrency_limit: schedule lag p99
  std::optional<double> client_busy{}, ceiling_fraction{};  // client_saturated: busiest thread, share of the ceiling
  int failed = 0, requests = 0;    // failures: failed of all finished requests
  std::map<std::string, int> failed_by_category{};  // failures: outcome -> count
  double percentile = 0;           // few_samples: the highest percentile reported
  int completed = 0;               // few_samples: the completed requests behind it
  double needed = 0;               // few_samples: completed requests it needs
  std::string metric{};            // variance: the metric's key, e.g. "p99_ttft_ms"
  double cv = 0;                   // variance: coefficient of variation (population std / mean)
  int runs = 0;                    // variance: repeated runs compared
};

// A percentile P is only trusted with at least 1 / (1 - P/100) completed samples, i.e. at least one
// sample above it (p99 needs 100, p99.9 needs 1000).
std::vector<Warning> run_warnings(const results::Run& run);

// Runs with the same label, model, backend, configuration and load values are repeats of one
// configuration; for each stage and metric the coefficient of variation (population std / mean)
// above `cv_limit` is flagged.
// Returns one list per input run (warnings are attached to every run of the group).
std::vector<std::vector<Warning>> variance_warnings(const std::vector<results::Run>& runs,
                                                    double cv_limit = 0.20);

}  // namespace sb::analyze
