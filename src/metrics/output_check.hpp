#pragma once
// Requested vs delivered output lengths and finish reasons of one stage (StageSummary::output_check):
// a stage whose outputs were cut short measured less work than it was asked to.
#include <vector>

#include "metrics/request_record.hpp"
#include "metrics/stage_summary.hpp"

namespace sb {

// Shortfalls up to this fraction are normal tokenizer/stop noise; above it a stage is flagged.
inline constexpr double kOutputShortfallThreshold = 0.03;

// Over the successful requests (ok with >= 1 token event, as summarize() counts them).
OutputCheck check_outputs(const std::vector<RequestRecord>& records, double threshold = kOutputShortfallThreshold);

}  // namespace sb
