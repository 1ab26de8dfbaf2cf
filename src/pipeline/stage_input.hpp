#pragma once
// What one stage hands the runner: its requests (ids unique across stages, repeats and cycles),
// their send times (schedule or ramp, in the modelled GPU's time, sent on the wall clock), the
// concurrency limit and the duration bound; under --shard, this shard's slice of them.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "exec/runner.hpp"
#include "load/staircase.hpp"
#include "pipeline/run_config.hpp"
#include "pipeline/run_prepare.hpp"
#include "pipeline/stage_workload.hpp"

namespace sb::pipeline {

// What a stage sends: its own prompts (stage_workload.hpp), kept alive with the input.
struct StageWork {
  StageWorkload workload;
  StageInput in;
  std::vector<std::uint32_t> global_index;  // --shard: each kept request's index in the whole stage
};

// `repeat`: the pass of the staircase (--repeats); `ordinal`: the stage counted across passes.
StageWork stage_input(const RunConfig& cfg, const Prepared& p, const StagePlan& plan, int repeat, std::size_t ordinal);

}  // namespace sb::pipeline
