#pragma once
// What the server said about itself (--scrape-metrics: Prometheus /metrics) and what the GPUs did
// (--gpu-telemetry: nvidia-smi, rocm-smi, amd-smi) during one stage. Plain numbers, filled by
// src/telemetry/ and carried in StageSummary; report/ turns them into words (docs/results-format.md
// "Server metrics and GPU telemetry").
#include <optional>
#include <string>
#include <vector>

namespace sb {

// A gauge over the periodic samples that fell inside the stage.
struct GaugeStats {
  double mean = 0, max = 0;
  int samples = 0;
};

// A server-side latency from the difference of two cumulative histograms (stage end − stage start):
// mean = Δsum / Δcount; quantiles interpolated inside buckets as Prometheus' histogram_quantile().
struct HistogramWindow {
  double count = 0;
  double mean_ms = 0, p50_ms = 0, p99_ms = 0;
};

// Which side held requests back during a stage, when the two sides disagree (telemetry::queue_side):
// the server queued (waiting > 0) while the client was not holding anything back, or the client
// queued while the server had nothing waiting.
enum class QueueSide { agree, server_queued, client_queued };

struct ServerStageMetrics {
  std::string dialect;  // whose names matched: vllm | vllm_v0 | sglang | tgi | llamacpp | unknown
  int scrapes = 0;      // successful scrapes inside the stage (the two boundary ones included)
  int failed_scrapes = 0;
  std::optional<GaugeStats> running, waiting;
  std::optional<GaugeStats> kv_cache_usage;     // fraction 0..1
  std::optional<double> waiting_share;          // share of the stage's samples with waiting > 0
  std::optional<double> preemptions;            // counter delta
  std::optional<double> prefix_cache_hit_rate;  // Δhits / Δqueries, else the engine's own gauge (mean)
  std::optional<double> requests_finished, prompt_tokens, generation_tokens;  // counter deltas
  std::optional<HistogramWindow> queue_time, ttft, prefill_time;
  QueueSide queue_side = QueueSide::agree;
};

struct GpuStageStats {
  int index = 0;
  std::string name;  // as the tool reports it ("" when it does not)
  int samples = 0;
  std::optional<GaugeStats> utilization_pct, memory_used_mib, memory_used_pct, power_w, sm_clock_mhz, memory_clock_mhz;
  std::optional<double> memory_total_mib;
};

struct GpuStageTelemetry {
  std::string tool;  // nvidia-smi | rocm-smi | amd-smi
  int failed_samples = 0;
  std::vector<GpuStageStats> gpus;  // by index
};

// A GPU found busy, or holding memory, before the first stage (telemetry::gpu_idle_problems).
struct GpuIdleProblem {
  int index = 0;
  std::optional<double> utilization_pct;                   // set when busy
  std::optional<double> memory_used_mib, memory_used_pct;  // set when memory is held
};

}  // namespace sb
