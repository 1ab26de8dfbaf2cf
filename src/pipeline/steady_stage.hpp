#pragma once
// The steady-state window of a finished stage (metrics/steady_window.hpp), with the run's
// percentiles and the stage's bound (--stage-seconds deadline or the last send).
#include "exec/runner.hpp"
#include "metrics/stage_summary.hpp"
#include "pipeline/run_config.hpp"

namespace sb::pipeline {

// Sets s.steady from the stage's records; the whole-stage figures of `s` stay as vLLM computes them.
void add_steady_state(const RunConfig& cfg, const StageOutput& out, StageSummary& s);

}  // namespace sb::pipeline
