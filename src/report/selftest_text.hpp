#pragma once
// The words of the client's ceiling: `servebench selftest`'s table, the note a run prints about its
// probe, and a stage's client-use line (metrics/client_use.hpp has the numbers).
#include <string>
#include <vector>

#include "metrics/client_use.hpp"

namespace sb::report {

// One row per measurement (thread count), with a header; ends with a newline.
std::string format_selftest_table(const std::vector<ClientCeiling>& rows);

// "client ceiling: 1.02 M events/s per thread (probe, 0.41 s; cached for a day in PATH; --no-selftest skips it)"
std::string format_ceiling_note(const ClientCeiling& c, double probe_s, const std::string& cache_path);

// "warning: the client's ceiling could not be measured (WHY); ..."
std::string format_ceiling_failure(const std::string& why);

// The console line under a stage's block when its client use was measured, and the warning naming
// the cause when the stage was held back by the client (cpu) or by --max-concurrency. "" = nothing.
std::string format_client_use(const StageSummary& s);

}  // namespace sb::report
