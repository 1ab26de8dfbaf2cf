#pragma once
// `tune`'s summary.json (docs/results-format.md §7, ours): every configuration with its knee,
// capacity, kernels and comparison with the baseline, the best configuration and the Pareto points.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "analyze/tune_analysis.hpp"

namespace sb::report {

// `sweep_paths[i]`: configuration i's sweep document as given ("" when it failed).
nlohmann::ordered_json tune_summary_json(const analyze::TuneInput& in, const analyze::TuneAnalysis& a,
                                         const std::vector<std::string>& sweep_paths);

}  // namespace sb::report
