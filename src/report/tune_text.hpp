#pragma once
// What `tune` prints at the end (docs/tune.md "What tune writes across configurations"): one line per configuration (knee, peak,
// capacity under the SLOs, or its failure), the best configuration with its reason, the comparison
// of each configuration with the baseline (metric | baseline | tuned | change, kernel rows included)
// and the Pareto points. Formatting only: analyze/tune_analysis decides.
#include <string>

#include "analyze/tune_analysis.hpp"

namespace sb::report {

// "c=16" / "rate 8"
std::string tune_stage_label(LoadMode mode, double load_value);

// One line: which configuration is best and why, or why none is.
std::string best_config_text(const analyze::TuneInput& in, const analyze::TuneAnalysis& a);

// The SLOs as typed: "ttft_p99_ms<=1000, tpot_p50_ms<=50", or "none".
std::string slos_text(const std::vector<analyze::Slo>& slos);

// Per shared stage, the baseline's top kernels' mean in both runs.
std::string stage_kernels_table(LoadMode mode, const std::vector<analyze::StageKernelDeltas>& stages);

std::string tune_console(const analyze::TuneInput& in, const analyze::TuneAnalysis& a);

// One line each, for tune's stderr.
std::string tune_warning_text(const std::string& config, const std::string& what);
std::string tune_write_error_text(const std::string& path, const std::string& why);
std::string tune_no_configs_text();
std::string tune_missing_sweep_text();  // a failure line: neither results nor a failure were recorded

}  // namespace sb::report
