#pragma once
// How long a stage issues requests (--stage-seconds, --num-prompts, or both) and which repeat of the
// staircase it belongs to (--repeats): request counts, the runner's duration bound, unique ids.
#include <cstddef>
#include <string>

#include "exec/runner.hpp"
#include "load/staircase.hpp"
#include "pipeline/run_config.hpp"

namespace sb::pipeline {

// Requests to list for the stage: the plan's count; for an open-loop stage with --stage-seconds the
// arrivals of S seconds at its rate (at least 1), capped by the plan's count when --num-prompts
// was given too. A closed-loop stage lists the plan's requests and cycles them (bound_stage).
std::size_t stage_request_count(const RunConfig& cfg, const StagePlan& plan);

// Sets the runner's duration bound on a closed-loop stage with --stage-seconds: issue for S
// seconds, at most the listed requests when prompts bound the stage too, else cycling them.
void bound_stage(const RunConfig& cfg, const StagePlan& plan, StageInput& in);

// Suffix that keeps request ids unique across repeats: "" for the first pass, "-r<k>" after.
std::string repeat_suffix(int repeat);

}  // namespace sb::pipeline
