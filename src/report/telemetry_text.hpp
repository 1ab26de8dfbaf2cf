#pragma once
// Words for the run's side channels (--scrape-metrics, --gpu-telemetry): the warnings before the
// first stage and the per-stage console lines under vLLM's block.
#include <string>
#include <string_view>
#include <vector>

#include "metrics/stage_summary.hpp"

namespace sb::report {

std::string format_gpu_tool_missing(std::string_view tool);  // an error message (no "error:" prefix)
std::string format_gpu_tool_none_found();
std::string format_gpu_sample_failed(std::string_view tool, const std::string& why);
std::string format_gpu_idle_problems(std::string_view tool, const std::vector<GpuIdleProblem>& problems);
std::string format_scrape_failed(const std::string& why);

// What the QueueSide value means, in a clause ("" for agree).
std::string queue_side_text(QueueSide side);

// "Server (vllm): running 3.9 (max 4), waiting 4.1 (max 8), …" and one "GPU i: …" line per GPU;
// "" when the stage has neither.
std::string format_stage_telemetry(const StageSummary& s);

}  // namespace sb::report
