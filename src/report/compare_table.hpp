#pragma once
// compare's terminal output, read top-down in ten seconds: workload warnings first, a headline table
// at one stage (baseline, tuned, change, significance), then every load as a compact pivot (metrics
// by load), the knee shift, hints and the gate. Formatting only: analyze/compare and gate decide.
#include <string>

#include "analyze/compare.hpp"
#include "report/analysis_json.hpp"

namespace sb::report {

// "req/s", "TTFT p99 (ms)", ...; other metrics keep their name.
std::string metric_label(const std::string& metric);

// Why the headline is read where it is, e.g. "the baseline's knee".
const char* headline_basis_text(analyze::HeadlineBasis b) noexcept;

std::string headline_table(const analyze::Comparison& c);

// Change % per metric (rows) and load (columns); "*" marks a significant change, "?" one that cannot
// be judged.
std::string pivot_table(const analyze::Comparison& c);

std::string console_compare(const results::Run& baseline, const results::Run& tuned, const analyze::Comparison& c,
                            const GateResult& gate);

// The refusal of compare when the load modes differ, naming both files and their modes.
std::string load_mode_refusal_text(const results::Run& baseline, const results::Run& tuned);

}  // namespace sb::report
