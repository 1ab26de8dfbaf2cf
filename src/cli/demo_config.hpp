#pragma once
// The run `servebench demo` makes against its in-process simulator, as a typed RunConfig: the
// random dataset, a concurrency staircase, the sweep document at `output_json` and the per-request
// JSONL beside it. What `servebench run --port PORT --num-prompts N --random-input-len I
// --random-output-len O --output-json FILE --label demo --metadata sim_time_scale=10 --metadata
// sim_gpu=h100 --concurrency ...` would give.
#include <cstdint>
#include <string>

#include "pipeline/run_config.hpp"

namespace sb::cli {

// quick: 4 stages (1 4 16 64) of 32 requests of 128 -> 16 tokens; else 9 stages (1 2 ... 256) of
// 512 requests of 256 -> 64 tokens.
pipeline::RunConfig demo_run_config(std::uint16_t port, bool quick, const std::string& output_json);

}  // namespace sb::cli
