#pragma once
// The one model of a run and its stages that analysis and every formatter work on. Filled in memory
// from the pipeline's StageSummary list (from_summaries.hpp), or read from a sweep document or from
// vLLM's result files (result_reader.hpp). Plain data: no formatting, no file access.
#include <array>
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/host_clocks.hpp"
#include "load/staircase.hpp"
#include "metrics/stage_summary.hpp"

namespace sb::results {

// The latency metrics of a stage, in vLLM's key order (docs/results-format.md §2).
enum class Metric { ttft, tpot, itl, e2el, client_queue_time, e2el_including_client_queue };
inline constexpr std::array<Metric, 6> kAllMetrics{Metric::ttft, Metric::tpot, Metric::itl, Metric::e2el,
                                                   Metric::client_queue_time, Metric::e2el_including_client_queue};
// vLLM's name of the metric in keys such as "p99_ttft_ms": "ttft", "client_queue_time", ...
std::string_view metric_name(Metric m) noexcept;
std::optional<Metric> metric_from_name(std::string_view name) noexcept;

// Statistics of one latency metric in milliseconds; a statistic the source did not have is nullopt.
struct MetricStats {
  std::optional<double> mean{}, median{}, std{};
  std::vector<std::pair<double, double>> percentiles{};  // (P, value), in the source's order

  // Percentile P; P = 50 falls back to the median when no p50 was recorded.
  std::optional<double> percentile(double p) const noexcept;
  bool empty() const noexcept { return !mean && !median && !std && percentiles.empty(); }
};

struct Stage {
  int stage_index = 0;                 // run order
  double load_value = 0;               // concurrency or rate of this stage (may be +inf)
  double request_rate = 0;             // +inf when all requests were released at t0
  std::optional<int> max_concurrency;
  int num_prompts = 0, completed = 0, failed = 0;
  double duration_s = 0;
  double request_throughput = 0, output_throughput = 0, total_token_throughput = 0;
  std::optional<double> request_goodput;
  std::array<std::optional<MetricStats>, kAllMetrics.size()> latency;  // kAllMetrics order
  bool client_saturated = false;
  ClientLimit client_limit = ClientLimit::none;            // whose limit held the stage back (servebench.client_limit)
  std::optional<double> client_busy, client_ceiling_fraction;  // servebench.client_use
  int repeat = 0;                      // --repeats: the staircase pass it ran in (servebench.repeat)
  std::optional<double> schedule_lag_p99_ms;
  std::optional<double> input_len_mean, output_len_mean;  // delivered tokens per request
  std::map<std::string, int> errors;   // outcome category -> count
  std::optional<double> start_unix_s, end_unix_s;          // wall-clock window (sweep documents)
  std::optional<OutputCheck> output_check;                 // requested vs delivered output (sweep documents)
  std::optional<double> ttft_from_intended_p99_ms;         // open-loop stages of sweep documents
  std::string prompt_selection;                            // "disjoint" | "unique_prefix" | "reused" | ""
  bool duration_bounded = false;                           // ran for --stage-seconds (servebench.steady_state)
  std::optional<TtftBreakdown> ttft_breakdown;             // server queue / prefill / rest (sweep documents)
  std::optional<PromptCacheShare> prompt_cache;            // cached prompt-token share (sweep documents)
  std::optional<ServerStageMetrics> server;                // --scrape-metrics (sweep documents)
  std::optional<GpuStageTelemetry> gpu;                    // --gpu-telemetry (sweep documents)

  const std::optional<MetricStats>& stats(Metric m) const noexcept { return latency[static_cast<std::size_t>(m)]; }
  std::optional<MetricStats>& stats(Metric m) noexcept { return latency[static_cast<std::size_t>(m)]; }
  // Percentile P of metric m (P = 50: median when no p50), nullopt when absent.
  std::optional<double> percentile(Metric m, double p) const noexcept;
};

// One request of the per-request data (JSONL, or vLLM's --save-detailed arrays).
struct Request {
  int stage = 0;                       // index into Run::stages
  bool ok = false;
  double ttft_ms = -1, tpot_ms = -1, e2el_ms = -1;  // -1: not measured for this request
  int output_tokens = 0;
};

struct Run {
  std::string source;                  // file path (first file for grouped vLLM results)
  std::string format;                  // "servebench.sweep" or "vllm"
  std::string label;                   // --label, else the file's stem (sweeps) or backend/model (vLLM)
  LoadMode load_mode = LoadMode::concurrency;  // to_string(): the documents' "concurrency" | "request_rate"
  std::string model, backend, dataset;
  std::string config_json;             // configuration, secrets redacted, pretty-printed
  bool aborted = false;
  std::vector<Stage> stages;           // sorted by load_value
  std::vector<Request> requests;       // empty when no per-request data was found
  std::vector<std::string> notes;      // what was missing while reading (e.g. JSONL not found)
  std::optional<int> knee_stage_index; // the document's own analysis.knee.stage_index, if any
  std::optional<HostClocks> clocks_at_start;  // environment.clocks_at_start (sweeps of this version)
  // environment.server_time_scale / time_factor: the simulator ran K times faster than the GPU it
  // models; time_factor K means the figures are already the modelled GPU's, 1 that they are wall clock.
  double server_time_scale = 1, time_factor = 1;

  // Stage index (into `stages`) for a load value, or -1.
  int find_stage(double load_value) const;
};

// A stage value by the name a user typed (--slo, --fail-if, compare --metrics): the throughput keys
// (request_throughput, output_throughput, total_token_throughput, request_goodput), vLLM's latency
// keys ("p99_ttft_ms", "mean_tpot_ms", "median_itl_ms", "std_e2el_ms") and the aliases "ttft_p99",
// "ttft_p99_ms", "ttft_median" ("p50" falls back to the median). nullopt when the stage lacks it.
std::optional<double> metric_by_name(const Stage& s, std::string_view name);

// Stable sort by load; per-request samples refer to stages by their run-order stage_index, which
// is mapped to the stage's new position (samples of unknown stages are dropped).
void sort_stages(Run& run);

}  // namespace sb::results
