#pragma once
// A measured staircase as calibrate replays it: per stage, the requests the run actually sent
// (prompt and output lengths the server counted, intended send times, the concurrency limit) from
// its per-request JSONL, and the stage's measured output throughput, TTFT p50 and TPOT p50 from its
// sweep document. Sans-I/O: the caller reads the files.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "predict/stage_metrics.hpp"
#include "predict/virtual_client.hpp"
#include "results/model.hpp"

namespace sb::predict {

struct MeasuredRequest {
  int stage = 0;           // the sweep's stage_index (run order)
  std::uint32_t index = 0; // position in the stage's request list (send order)
  bool ok = false;
  double intended_ms = 0;
  double sent_ms = 0;      // when it went out: a closed loop's replacements, the client's lag
  int prompt_tokens = 0;
  int output_tokens = 0;
};

struct MeasuredStage {
  int stage_index = 0;   // run order, as the sweep numbers it
  double load_value = 0; // concurrency or rate
  PlayedStage replay;    // the stage's successful requests, to play again
  StageMetrics measured;
};

// The JSONL's lines (docs/results-format.md §3). Throws sb::UserError "PATH:LINE: what".
std::vector<MeasuredRequest> parse_measured_requests(std::string_view jsonl_text, const std::string& path);

// The sweep document's "requests_file" (relative to the document's folder), if it names one.
std::optional<std::string> sweep_requests_file(std::string_view sweep_text);

// One MeasuredStage per stage of `run` that has successful requests, in run order. A request
// replays with its delivered output length (ignore_eos: the measured lengths are the answer, not a
// draw), due when it was actually sent, under the stage's concurrency limit: a closed loop's
// first wave reaches the server spread over the client's send times, not all at once, and which
// step a request joins depends on it. With other parameters than the server's, a replacement
// still waits for a slot of the replay. Throws sb::UserError when a stage lacks the metrics the
// fit compares.
std::vector<MeasuredStage> measured_stages(const results::Run& run, const std::vector<MeasuredRequest>& requests);

}  // namespace sb::predict
