#pragma once
// Plain result of folding one stage's RequestRecords (metrics/summarize.hpp). No formatting here:
// reporters in report/ turn it into console text and JSON.
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace sb {

// Statistics of one metric, in milliseconds, numpy semantics (spec §5.4).
struct MetricStats {
  double mean_ms = 0, median_ms = 0, std_ms = 0;
  std::vector<std::pair<double, double>> percentiles_ms;  // (P, value), ascending P
  std::size_t count = 0;                                  // samples behind the numbers
};

struct LengthStats {
  double mean = 0, p50 = 0, p99 = 0;
};

struct ErrorCategory {
  int count = 0;
  std::string sample;                 // one representative message
  std::map<int, int> http_statuses;   // status -> count (http_error only)
};

// What defines a stage's load: closed loop at `max_concurrency`, or open loop at `request_rate`.
struct StageLoad {
  double request_rate = std::numeric_limits<double>::infinity();  // req/s; inf = all at t0
  double burstiness = 1.0;
  std::optional<int> max_concurrency;
};

struct StageSummary {
  std::size_t stage_index = 0;
  StageLoad load;
  int num_prompts = 0;      // requests planned
  int sent = 0;             // requests actually sent
  bool aborted = false;

  double duration_s = 0;    // first schedule point to last completion (vLLM benchmark duration)
  int completed = 0, failed = 0;
  std::int64_t total_input_tokens = 0, total_output_tokens = 0;
  double request_throughput = 0, output_throughput = 0, total_token_throughput = 0;
  std::optional<double> request_goodput;
  double max_output_tokens_per_s = 0;
  int max_concurrent_requests = 0;

  MetricStats ttft, tpot, itl, e2el;
  MetricStats client_queue_time, e2el_including_client_queue;

  // servebench additions
  std::optional<MetricStats> ttft_from_intended, e2el_from_intended;  // open loop only
  std::optional<LengthStats> schedule_lag_ms;                         // p50/p99/max(in `mean` slot? no: see below)
  double schedule_lag_max_ms = 0;
  bool client_saturated = false;
  double in_flight_mean = 0;
  int in_flight_max = 0;
  std::map<std::string, ErrorCategory> errors;  // by outcome name
  std::string token_count_source;               // usage | tokenizer | event_count | mixed
  LengthStats input_requested, input_delivered, output_requested, output_delivered;
  double start_unix_s = 0, end_unix_s = 0;
};

}  // namespace sb
