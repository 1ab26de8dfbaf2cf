#pragma once
// A fixed RunContext and StageSummary for reporter golden tests: round numbers chosen by hand so
// the golden files are easy to check by eye.
#include "metrics/stage_summary.hpp"
#include "report/run_context.hpp"

namespace sb::testdata {

inline MetricStats sample_metric(double base_ms) {
  MetricStats m;
  m.mean_ms = base_ms * 1.25;
  m.median_ms = base_ms;
  m.std_ms = base_ms / 4;
  m.percentiles_ms = {{50, base_ms}, {90, base_ms * 2}, {95, base_ms * 2.5}, {99, base_ms * 4},
                      {99.9, base_ms * 5}};
  m.count = 100;
  return m;
}

inline report::RunContext sample_context() {
  report::RunContext c;
  c.backend = "vllm";
  c.model_id = "meta-llama/Llama-3.1-8B-Instruct";
  c.served_model_name = c.model_id;
  c.tokenizer_id = c.model_id;
  c.base_url = "http://127.0.0.1:8000";
  c.endpoint = "/v1/completions";
  c.num_prompts = 100;
  c.load_mode = LoadMode::concurrency;
  c.load_values = {4, 16};
  c.metric_percentiles = {99.9, 99};
  c.percentile_metrics = {"ttft", "tpot", "itl", "e2el"};
  c.goodput_slo_ms = {{"ttft", 500}};
  c.metadata = {{"gpu", "H200"}, {"note", "caf\xc3\xa9"}};
  c.config_json = R"({"model": "meta-llama/Llama-3.1-8B-Instruct", "headers": {"x-team": "<redacted>"}})";
  c.clock_anchor = {1'000'000'000, 1'764'470'000'000'000'000};
  c.client_threads = 2;
  c.hostname = "bench-host";
  c.os = "Linux 6.1.0";
  c.cpu_count = 16;
  return c;
}

// Stage 1 of a concurrency sweep: 16 in flight, closed loop.
inline StageSummary sample_stage() {
  StageSummary s;
  s.stage_index = 1;
  s.load.max_concurrency = 16;
  s.num_prompts = 100;
  s.sent = 100;
  s.duration_s = 12.5;
  s.completed = 98;
  s.failed = 2;
  s.total_input_tokens = 98 * 512;
  s.total_output_tokens = 98 * 128;
  s.request_throughput = 7.84;
  s.output_throughput = 1003.52;
  s.total_token_throughput = 5017.6;
  s.request_goodput = 7.5;
  s.max_output_tokens_per_s = 1200;
  s.max_concurrent_requests = 16;
  s.ttft = sample_metric(80);
  s.tpot = sample_metric(12);
  s.itl = sample_metric(11.5);
  s.e2el = sample_metric(1600);
  s.client_queue_time = sample_metric(900);
  s.e2el_including_client_queue = sample_metric(2500);
  s.in_flight_mean = 15.5;
  s.in_flight_max = 16;
  s.errors["http_error"] = {2, "Service Unavailable", {{503, 2}}};
  s.token_count_source = "usage";
  s.input_requested = {512, 512, 512};
  s.input_delivered = {512, 512, 512};
  s.output_requested = {128, 128, 128};
  s.output_delivered = {128, 128, 128};
  s.start_unix_s = 1764470000.25;
  s.end_unix_s = 1764470012.75;
  return s;
}

}  // namespace sb::testdata
