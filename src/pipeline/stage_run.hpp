#pragma once
// One stage of a run, start to finish: its header and live progress line, the runner with each
// finished record streamed to the JSONL file (in modelled time, re-tokenized when the server sent no
// usage), the summary with the client's use, steady state and telemetry, the outputs' rewrite and
// the console block.
#include <cstddef>

#include "exec/runner.hpp"
#include "load/staircase.hpp"
#include "metrics/stage_summary.hpp"
#include "pipeline/run_config.hpp"
#include "pipeline/run_outputs.hpp"
#include "pipeline/run_pipeline.hpp"
#include "pipeline/run_prepare.hpp"
#include "pipeline/run_telemetry.hpp"
#include "pipeline/shard_run.hpp"

namespace sb::pipeline {

struct StageRun {
  StageSummary summary;
  bool stop = false;
};

struct StageEnv {
  const RunConfig& cfg;
  const Prepared& p;
  Runner& runner;
  RunOutputs& outputs;
  const RunIo& io;
  std::size_t stage_count;  // for the progress line: the list's length or the search's budget
  int repeat = 0;           // --repeats: the pass of the staircase
  RunTelemetry* telemetry = nullptr;  // --scrape-metrics / --gpu-telemetry; null when neither
  ShardRun* shard = nullptr;          // --shard I/N with N > 1; null otherwise
};

// Runs `whole` (the plan's stage; under --shard this shard sends its slice). `stop` in the result:
// the runner stopped the stage early.
StageRun run_one_stage(const StageEnv& env, const StagePlan& whole);

}  // namespace sb::pipeline
