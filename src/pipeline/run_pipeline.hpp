#pragma once
// The whole `servebench run` after option parsing, reusable by `servebench demo`:
// prepare_run (preflight, tokenizer, dataset, bodies, staircase) -> per stage (schedule or ramp,
// Runner::run_stage with records streamed to JSONL, outputs re-tokenized when the server sent no
// usage, summarize, report/'s console block, sweep JSON and CSV rewrite, optional vLLM files) ->
// report/'s staircase table. A stop request (app/ turns Ctrl-C and SIGTERM into one) stops
// dispatch and still writes every output, marked aborted.
#include <cstdio>
#include <optional>
#include <stop_token>
#include <vector>

#include "pipeline/run_analysis.hpp"
#include "pipeline/run_config.hpp"
#include "core/exit_codes.hpp"
#include "metrics/stage_summary.hpp"

namespace sb::pipeline {

struct RunIo {
  std::FILE* out = stdout;      // summary blocks and the final table
  std::FILE* err = stderr;      // warnings, notes, the live progress line
  bool progress = true;         // live progress line (still only when `err` is a terminal)
};

struct RunResult {
  ExitCode code = ExitCode::ok;
  std::vector<StageSummary> stages;
  bool aborted = false;
  std::string model_id;
  std::optional<AnalysedRun> analysis;  // knee, regions, ...: what the sweep document got (needs --output-json)
};

// The one entry point of a run. `stop` may be requested from any thread at any time: during the
// preparation (preflight, tokenizer, dataset), the run returns at once, sends and writes nothing;
// during a stage, dispatch stops (in-flight requests get the client's grace time) and every output
// is written, marked aborted. Either way the code is ExitCode::aborted.
// Throws sb::UserError listing validate(cfg)'s problems by field, or for preflight problems (before
// any load is sent).
RunResult run(const RunConfig& cfg, const RunIo& io, std::stop_token stop);

}  // namespace sb::pipeline
