#include "telemetry/server_metric_names.hpp"

#include <array>

namespace sb::telemetry {

namespace {

// Sources: vLLM V1 (vllm/v1/metrics/loggers.py; tests/data/metrics and ../shared/fixtures/vllm_metrics),
// vLLM V0 (vllm/engine/metrics.py, ~0.6), SGLang (docs/references/production_metrics.md), TGI
// (router/src/… `tgi_*`), llama.cpp (`llama-server --metrics`, tools/server/server.cpp). An empty
// name: the engine does not expose that quantity.
constexpr std::array kNames{
    ServerMetricNames{.dialect = "vllm",
                      .running = "vllm:num_requests_running",
                      .waiting = "vllm:num_requests_waiting",
                      .kv_cache_usage = "vllm:kv_cache_usage_perc",
                      .preemptions = "vllm:num_preemptions_total",
                      .prefix_hits = "vllm:prefix_cache_hits_total",
                      .prefix_queries = "vllm:prefix_cache_queries_total",
                      .prefix_hit_rate = "",
                      .finished = "vllm:request_success_total",
                      .prompt_tokens = "vllm:prompt_tokens_total",
                      .generation_tokens = "vllm:generation_tokens_total",
                      .queue_time = "vllm:request_queue_time_seconds",
                      .ttft = "vllm:time_to_first_token_seconds",
                      .prefill_time = "vllm:request_prefill_time_seconds"},
    // V0 shares the request gauges' names; it is told apart by its cache gauge (resolve_dialect).
    ServerMetricNames{.dialect = "vllm_v0",
                      .running = "vllm:num_requests_running",
                      .waiting = "vllm:num_requests_waiting",
                      .kv_cache_usage = "vllm:gpu_cache_usage_perc",
                      .preemptions = "vllm:num_preemptions_total",
                      .prefix_hits = "",
                      .prefix_queries = "",
                      .prefix_hit_rate = "vllm:gpu_prefix_cache_hit_rate",
                      .finished = "vllm:request_success_total",
                      .prompt_tokens = "vllm:prompt_tokens_total",
                      .generation_tokens = "vllm:generation_tokens_total",
                      .queue_time = "vllm:request_queue_time_seconds",
                      .ttft = "vllm:time_to_first_token_seconds",
                      .prefill_time = "vllm:request_prefill_time_seconds"},
    ServerMetricNames{.dialect = "sglang",
                      .running = "sglang:num_running_reqs",
                      .waiting = "sglang:num_queue_reqs",
                      .kv_cache_usage = "sglang:token_usage",
                      .preemptions = "sglang:num_retracted_reqs",
                      .prefix_hits = "",
                      .prefix_queries = "",
                      .prefix_hit_rate = "sglang:cache_hit_rate",
                      .finished = "sglang:num_requests_total",
                      .prompt_tokens = "sglang:prompt_tokens_total",
                      .generation_tokens = "sglang:generation_tokens_total",
                      .queue_time = "sglang:queue_time_seconds",
                      .ttft = "sglang:time_to_first_token_seconds",
                      .prefill_time = ""},
    ServerMetricNames{.dialect = "tgi",
                      .running = "tgi_batch_current_size",
                      .waiting = "tgi_queue_size",
                      .kv_cache_usage = "",
                      .preemptions = "",
                      .prefix_hits = "",
                      .prefix_queries = "",
                      .prefix_hit_rate = "",
                      .finished = "tgi_request_success",
                      .prompt_tokens = "",
                      .generation_tokens = "",
                      .queue_time = "tgi_request_queue_duration",
                      .ttft = "",
                      .prefill_time = ""},  // tgi_batch_inference_duration is per batch, not per request
    ServerMetricNames{.dialect = "llamacpp",
                      .running = "llamacpp:requests_processing",
                      .waiting = "llamacpp:requests_deferred",
                      .kv_cache_usage = "llamacpp:kv_cache_usage_ratio",
                      .preemptions = "",
                      .prefix_hits = "",
                      .prefix_queries = "",
                      .prefix_hit_rate = "",
                      .finished = "",
                      .prompt_tokens = "llamacpp:prompt_tokens_total",
                      .generation_tokens = "llamacpp:tokens_predicted_total",
                      .queue_time = "",
                      .ttft = "",
                      .prefill_time = ""},
};

}  // namespace

std::span<const ServerMetricNames> server_metric_names() { return kNames; }

}  // namespace sb::telemetry
