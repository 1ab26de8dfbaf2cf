#pragma once
// `tune`'s summary.csv: one row per configuration and stage (a failed configuration: one row with its
// failure), CRLF records as report/csv_table writes them (docs/results-format.md §7).
//
// Columns: config, status, failure, then one column per grid parameter (union over configurations,
// first-seen order), load_mode, load_value, completed, failed, request_throughput, output_throughput,
// p99_ttft_ms, mean_tpot_ms, output_tok_s_per_user, output_tok_s_per_gpu, pareto_dominated,
// meets_slos, knee, best.
#include <string>

#include "analyze/tune_analysis.hpp"

namespace sb::report {

std::string tune_summary_csv(const analyze::TuneInput& in, const analyze::TuneAnalysis& a);

}  // namespace sb::report
