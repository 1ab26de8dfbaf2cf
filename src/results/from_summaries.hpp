#pragma once
// The results model of a run still in memory: the pipeline's StageSummary list converted without a
// round trip through the sweep document, holding what the sweep reader would read back from it
// (the same load values, statistics, redacted configuration and label).
#include <optional>
#include <string>
#include <vector>

#include "metrics/stage_summary.hpp"
#include "results/model.hpp"

namespace sb::results {

// What the model needs about a run besides its stages; the pipeline fills it from its run context.
struct RunInfo {
  std::string source;                   // the sweep document's path ("" when none is written)
  std::optional<std::string> label;     // --label; else the document's file stem
  LoadMode load_mode = LoadMode::request_rate;
  std::string config_json;              // resolved configuration as JSON text, secrets redacted
  bool aborted = false;
  double server_time_scale = 1, time_factor = 1;  // RunContext's: a simulator's speed-up, what the run applied
};

// Stages sorted by load as the readers sort them; no per-request samples (they stay in the JSONL).
Run from_summaries(const RunInfo& info, const std::vector<StageSummary>& stages);

// One stage: vLLM's latency keys the sweep writes (ttft, tpot, itl, e2el; client_queue_time with a
// concurrency limit; e2el_including_client_queue with a limit and a finite rate) at the ttft
// percentiles; values that are not finite count as absent, as the document writes them null.
Stage stage_from_summary(const StageSummary& s, LoadMode mode);

}  // namespace sb::results
