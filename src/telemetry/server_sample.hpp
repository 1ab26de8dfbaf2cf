#pragma once
// One scrape of the server's /metrics reduced to the quantities of server_metric_names.hpp
// (sans-I/O: a parsed PromScrape in, numbers out). Values summed over label sets (several engines
// of one server, finished_reason, …); the KV-cache usage and hit-rate gauges averaged over them.
#include <optional>
#include <string_view>

#include "core/clock.hpp"
#include "target/prom_text.hpp"

namespace sb::telemetry {

struct ServerSample {
  Nanos at_ns = 0;           // steady clock, when the reply came
  std::string_view dialect;  // server_metric_names(): "vllm", …; "unknown" when nothing matched
  std::optional<double> running, waiting, kv_cache_usage, prefix_hit_rate;  // gauges
  std::optional<double> preemptions, prefix_hits, prefix_queries, finished, prompt_tokens,
      generation_tokens;  // counters
  // Histograms: kept only for the stage-boundary scrapes (with_histograms), which take their deltas.
  std::optional<PromHistogramData> queue_time, ttft, prefill_time;
};

ServerSample read_server_sample(const PromScrape& scrape, Nanos at_ns, bool with_histograms);

}  // namespace sb::telemetry
