#pragma once
// Warnings a reader must see before trusting a curve: client saturation, failures, percentiles
// backed by too few samples, and run-to-run variance of repeated runs of one configuration.
#include <string>
#include <vector>

#include "results/model.hpp"

namespace sb::analyze {

struct Warning {
  std::string kind;     // client_saturated | failures | few_samples | variance | aborted | note
  int stage = -1;       // index into run.stages, -1 for the whole run
  std::string message;
};

// A percentile P is only trusted with at least 1 / (1 - P/100) completed samples, i.e. at least one
// sample above it (p99 needs 100, p99.9 needs 1000).
std::vector<Warning> run_warnings(const results::Run& run);

// The messages for a reader: consecutive stages with the same warning text ("stage 3: p99 from 48
// completed requests ...") are folded into one line ("stages 0-6: p99 from 48 ..."), since a short
// sweep would otherwise repeat it once per stage. Scripts get every warning from the JSON.
std::vector<std::string> warning_lines(const std::vector<Warning>& warnings);

// Runs with the same label, model, backend, configuration and load values are repeats of one
// configuration; for each stage and metric the coefficient of variation (population std / mean)
// above `cv_limit` is flagged.
// Returns one list per input run (warnings are attached to every run of the group).
std::vector<std::vector<Warning>> variance_warnings(const std::vector<results::Run>& runs,
                                                    double cv_limit = 0.20);

}  // namespace sb::analyze
