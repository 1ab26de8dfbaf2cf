#pragma once
// The words for what a stage's workload really was: outputs cut short of max_tokens, streams with
// no token text (metrics/output_check.hpp), and latency from the intended send time of open-loop
// stages. Shared by the console (after vLLM's block) and the HTML report.
#include <string>
#include <string_view>
#include <vector>

#include "metrics/stage_summary.hpp"

namespace sb::report {

// One line per problem ("" stage_label: the line is printed right under the stage's block);
// empty when outputs were delivered as requested.
std::vector<std::string> output_check_lines(const OutputCheck& c, std::string_view stage_label,
                                            std::size_t tpot_samples, std::size_t itl_samples);

// Open-loop stages: TTFT and E2EL from the intended send time beside vLLM's (from the actual send),
// so the client's own queueing is not hidden. Empty for closed-loop stages.
std::string format_intended_latency(const StageSummary& s);

}  // namespace sb::report
