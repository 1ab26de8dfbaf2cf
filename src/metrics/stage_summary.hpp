#pragma once
// Plain result of folding one stage's RequestRecords (metrics/summarize.hpp). No formatting here:
// reporters in report/ turn it into console text and JSON.
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "metrics/prompt_cache.hpp"
#include "metrics/ttft_breakdown.hpp"
#include "metrics/telemetry_stage.hpp"

namespace sb {

// Statistics of one metric, in milliseconds, numpy semantics (vLLM's benchmarks use np.mean/np.median/np.std/np.percentile; docs/results-format.md).
struct MetricStats {
  double mean_ms = 0, median_ms = 0, std_ms = 0;
  std::vector<std::pair<double, double>> percentiles_ms;  // (P, value), ascending P
  std::size_t count = 0;                                  // samples behind the numbers

  // Value of percentile P, or 0 when P was not computed (summaries always hold 50/90/95/99).
  double percentile_ms(double p) const noexcept {
    for (const auto& [pp, v] : percentiles_ms)
      if (pp == p) return v;
    return 0;
  }
};

// Token lengths (not times): mean and two percentiles.
struct LengthStats {
  double mean = 0, p50 = 0, p99 = 0;
};

// Actual − intended send time over every sent request of an open-loop stage.
struct ScheduleLag {
  double p50_ms = 0, p99_ms = 0, max_ms = 0;
};

// Whose limit held a stage back (metrics/client_use.hpp): the client's own CPU, or the
// --max-concurrency slots its requests waited for; none = neither.
enum class ClientLimit { none, cpu, concurrency_limit };

// The client's use of itself during a stage (metrics/client_use.hpp).
struct ClientUse {
  int threads = 0;                          // worker threads
  double events_per_s = 0;                  // token events / stage duration
  double cpu_s = 0;                         // workers + dispatcher, on-CPU seconds
  double busiest_thread_busy = 0;           // max over workers: (on-CPU + runnable) / duration
  std::optional<double> ceiling_fraction;   // events_per_s / (ceiling events per CPU-s x threads)
};

struct ErrorCategory {
  int count = 0;
  std::string sample;                 // message of the first failed request (dataset order)
  std::map<int, int> http_statuses;   // status -> count (requests with a status only)
};

// Requested vs delivered output of a stage's successful requests, and how their streams ended
// (metrics/output_check.hpp). A server that cuts outputs short (context full: finish "length")
// serves less work than the stage claims to measure.
struct OutputCheck {
  std::int64_t requested_tokens = 0;        // Σ max_tokens
  std::int64_t delivered_tokens = 0;        // Σ output tokens counted
  int short_requests = 0;                   // delivered < requested
  std::map<std::string, int> finish_reasons;  // to_string(FinishReason) -> requests, count > 0 only
  int without_text = 0;                     // streams whose token events carried no text at all
  double shortfall = 0;                     // 1 − delivered / requested (0 when nothing requested)
  bool short_of_requested = false;          // shortfall above the threshold (SummarizeParams)
};

// What defines a stage's load: closed loop at `max_concurrency`, or open loop at `request_rate`.
struct StageLoad {
  double request_rate = std::numeric_limits<double>::infinity();  // req/s; inf = all at t0
  double burstiness = 1.0;
  std::optional<int> max_concurrency;

  bool open_loop() const noexcept { return request_rate != std::numeric_limits<double>::infinity(); }
};

// The stage's measurement window, which leaves out ramp-up and drain (metrics/steady_window.hpp;
// docs/results-format.md "Steady state"). Closed loop: from the instant the target concurrency was
// first in flight to the instant issuing stopped; open loop: first to last scheduled arrival.
// Throughputs count what completed inside the window; latencies cover the requests that started in it.
struct SteadyState {
  double window_start_s = 0, window_s = 0;  // from the stage's t0; 0 length = no window
  std::optional<double> held_fraction;      // closed loop: time share of the window at the target in flight
  double mean_in_flight = 0;                // time-weighted over the window
  int target_in_flight = 0;                 // closed loop: min(limit, sent); 0 for open loop
  int started = 0, completed = 0;           // requests sent in the window; completions (any outcome) in it
  double request_throughput = 0;            // successful completions in the window / window_s
  double output_throughput = 0;             // output tokens whose events fall in the window / window_s
  MetricStats ttft, tpot, itl, e2el;        // over successful requests sent in the window
  double littles_law_ratio = 0;             // completions/s x mean (done - sent) / mean_in_flight; 1 = consistent
  std::vector<double> sub_request_throughput, sub_ttft_median_ms;  // consecutive equal sub-windows
  int sub_min_completed = 0;                // fewest completions in one sub-window
  double throughput_spread = 0, ttft_spread = 0;  // (max - min) / mean over the sub-windows
  bool duration_bounded = false;            // the stage ran for --stage-seconds
  std::optional<double> rate_fraction;      // open loop: whole-stage request_throughput / offered rate
  std::optional<double> steady_rate_fraction;  // open loop: window request_throughput / offered rate
};

struct StageSummary {
  std::size_t stage_index = 0;
  StageLoad load;
  int num_prompts = 0;      // requests planned
  int sent = 0;             // requests actually sent (completed + failed == sent)
  // Of them, sent once more on a fresh connection because the server closed a kept-alive one
  // unprocessed (exec/resend_rule.hpp); each counts once in sent.
  int resent = 0;
  bool aborted = false;

  // vLLM's keys (vllm/benchmarks/serve.py, calculate_metrics), over successful requests unless said otherwise.
  double duration_s = 0;    // stage t0 to last completion (vLLM benchmark duration)
  int completed = 0, failed = 0;
  std::int64_t total_input_tokens = 0, total_output_tokens = 0;
  double request_throughput = 0, output_throughput = 0, total_token_throughput = 0;
  std::optional<double> request_goodput;  // only with goodput SLOs
  double max_output_tokens_per_s = 0;     // busiest 1 s bin of token events
  int max_concurrent_requests = 0;        // sweep line over [sent, last token)

  MetricStats ttft, tpot, itl, e2el;
  MetricStats client_queue_time;            // sent − intended; reported when max_concurrency is set
  MetricStats e2el_including_client_queue;  // e2el + queue; reported only for a finite rate too

  // servebench additions (docs/results-format.md §2, object `servebench`)
  std::optional<MetricStats> ttft_from_intended, e2el_from_intended;  // open loop only
  std::optional<ScheduleLag> schedule_lag;                            // open loop only
  bool client_saturated = false;            // the client's CPU held it back (client_limit == cpu)
  ClientLimit client_limit = ClientLimit::none;
  std::optional<ScheduleLag> dispatch_lag;  // open loop: sent − max(intended, slot freed): the client's own part
  std::optional<ClientUse> client_use;      // nullopt: not measured (summaries built outside a run)
  double in_flight_mean = 0;                // Σ (done − sent) over sent requests / duration
  int in_flight_max = 0;                    // sweep line over [sent, done) of sent requests
  std::map<std::string, ErrorCategory> errors;  // outcome name -> details, count > 0 only
  std::string token_count_source;           // usage | tokenizer | event_count | mixed | none
  LengthStats input_requested, input_delivered, output_requested, output_delivered;
  double start_unix_s = 0, end_unix_s = 0;
  std::optional<SteadyState> steady;        // metrics/steady_window.hpp; nullopt: not computed
  int repeat = 0;                           // --repeats: which pass of the staircase (0-based)
  OutputCheck output_check;
  std::string prompt_selection;             // "disjoint" | "unique_prefix" | "reused" ("" = not recorded)
  std::optional<TtftBreakdown> ttft_breakdown;  // server queue / prefill / rest; nullopt: server said nothing
  std::optional<PromptCacheShare> prompt_cache; // nullopt: no cached counts reported
  std::optional<ServerStageMetrics> server;  // --scrape-metrics (src/telemetry/)
  std::optional<GpuStageTelemetry> gpu;      // --gpu-telemetry (src/telemetry/)
};

}  // namespace sb
