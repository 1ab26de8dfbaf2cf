#pragma once
// The table printed at the end of a run: one row per stage, aligned columns.
#include <string>
#include <vector>

#include "load/staircase.hpp"
#include "metrics/stage_summary.hpp"

namespace sb::report {

// Columns: concurrency or rate, req/s, output tok/s, total tok/s, TTFT p50/p99, TPOT p50, ITL p99
// (ms), failed. Numbers right-aligned; every line ends in '\n'; an aborted stage's row ends in
// "  (aborted)".
std::string format_staircase_table(LoadMode mode, const std::vector<StageSummary>& stages);

}  // namespace sb::report
