#pragma once
// The one table of Prometheus names per engine: which exposed family carries each quantity the run
// reports per stage (docs/results-format.md "Server metrics"). A dialect is picked per scrape by the
// first family of `running` or `waiting` present, so a server exposing two sets is read consistently.
#include <span>
#include <string_view>

namespace sb::telemetry {

struct ServerMetricNames {
  std::string_view dialect;                           // vllm | vllm_v0 | sglang | tgi | llamacpp
  std::string_view running, waiting;                  // gauges: requests in the batch / queued
  std::string_view kv_cache_usage;                    // gauge, fraction 0..1
  std::string_view preemptions;                       // counter
  std::string_view prefix_hits, prefix_queries;       // counters (tokens); "" when the engine has none
  std::string_view prefix_hit_rate;                   // gauge 0..1, used when there are no counters
  std::string_view finished;                          // counter summed over labels (finished_reason, …)
  std::string_view prompt_tokens, generation_tokens;  // counters
  std::string_view queue_time, ttft, prefill_time;    // histogram families, seconds
};

std::span<const ServerMetricNames> server_metric_names();

}  // namespace sb::telemetry
