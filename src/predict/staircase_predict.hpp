#pragma once
// `servebench predict`: the staircase `servebench run` would send (the same planned stages, the
// same prompts and lengths from the same dataset and seed, the same arrival schedule), played
// through the simulator's engine in virtual time (predict/virtual_client.hpp) instead of over
// HTTP. Each stage's records are summarised by metrics::summarize with vLLM's formulas, printed
// with run's console blocks and table, and written with run's outputs (sweep JSON, JSONL, CSV),
// marked predicted. Seconds of CPU for a whole staircase.
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "core/exit_codes.hpp"
#include "metrics/stage_summary.hpp"
#include "pipeline/run_analysis.hpp"
#include "pipeline/run_config.hpp"
#include "sim/engine.hpp"

namespace sb::predict {

struct PredictConfig {
  pipeline::RunConfig run;  // workload, staircase and outputs, as `run` reads them from its flags
  sim::EngineConfig engine;
  // What the prediction was made from, a JSON object text ({"model_preset": ..., "engine_config":
  // FILE, ...}): the sweep document's `prediction` (docs/results-format.md).
  std::string source_json = "{}";
};

struct PredictIo {
  std::FILE* out = stdout;  // per-stage blocks and the table
  std::FILE* err = stderr;  // notes ("wrote FILE")
  bool quiet = false;       // --grid: no per-stage blocks, only the comparison at the end
};

struct PredictResult {
  ExitCode code = ExitCode::ok;
  std::vector<StageSummary> stages;
  std::optional<pipeline::AnalysedRun> analysis;  // >= 2 stages
  std::uint64_t engine_steps = 0;                 // summed over the stages (for the CPU budget)
};

// Problems of a run configuration that predict cannot play, by field ("load.search": stages
// chosen from measured answers; "stage_seconds"; "repeats": a prediction has no run-to-run noise).
Problems unsupported_in_prediction(const pipeline::RunConfig& c);

// Throws sb::UserError for the problems above, for validate(run)'s, and when the engine
// configuration cannot work.
PredictResult predict_staircase(const PredictConfig& cfg, const PredictIo& io);

}  // namespace sb::predict
