#pragma once
// Words about failed requests: the stop line of a stage above --max-failure-ratio, and the remedy
// of each known cause (metrics/failure_cause.hpp) printed with the error summary.
#include <string>
#include <vector>

#include "load/staircase.hpp"
#include "metrics/failure_cause.hpp"
#include "metrics/request_record.hpp"
#include "metrics/stage_summary.hpp"

namespace sb::report {

// "stage c=4: 200 of 200 requests failed (connect_error 200): stopping": the stage named by its
// load (c=N in concurrency mode, rate=R req/s in rate mode), never by index; categories by count.
std::string format_failure_stop(LoadMode mode, double load_value, const StageSummary& s);

// What to change for a known cause; "" for FailureCause::unknown.
std::string remedy(FailureCause cause);

// One line per known cause among the failed sent requests, most frequent first:
// "Remedy (12 requests, context length exceeded): use shorter inputs ...\n"; "" when none is known.
std::string format_remedies(const std::vector<RequestRecord>& records);

// "Note: 3 requests were sent again on a fresh connection: ...\n" when the stage resent any
// (StageSummary::resent), else "".
std::string format_resent(const StageSummary& s);

}  // namespace sb::report
