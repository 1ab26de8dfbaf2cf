#pragma once
// The whole `servebench run` after option parsing, reusable by `servebench demo`:
// prepare_run (preflight, tokenizer, dataset, bodies, staircase) -> per stage (schedule or ramp,
// Runner::run_stage with records streamed to JSONL, outputs re-tokenized when the server sent no
// usage, summarize, report/'s console block, sweep JSON and CSV rewrite, optional vLLM files) ->
// report/'s staircase table. Ctrl-C (SIGINT/SIGTERM) stops dispatch and still writes every
// output, marked aborted.
#include <cstdio>
#include <vector>

#include "pipeline/run_config.hpp"
#include "core/exit_codes.hpp"
#include "metrics/stage_summary.hpp"

namespace sb::pipeline {

struct PipelineIo {
  std::FILE* out = stdout;      // summary blocks and the final table
  std::FILE* err = stderr;      // warnings, notes, the live progress line
  bool progress = true;         // live progress line (still only when `err` is a terminal)
  bool handle_signals = true;   // install SIGINT/SIGTERM handlers for the duration of the run
};

struct RunResult {
  ExitCode code = ExitCode::ok;
  std::vector<StageSummary> stages;
  bool aborted = false;
  std::string model_id;
};

// Throws sb::UserError for configuration / preflight problems (before any load is sent).
RunResult run_pipeline(const RunConfig& cfg, const PipelineIo& io);

}  // namespace sb::pipeline
