#include "report/telemetry_json.hpp"

namespace sb::report {

namespace {

using nlohmann::ordered_json;

ordered_json gauge_json(const std::optional<GaugeStats>& g) {
  if (!g) return nullptr;
  return ordered_json{{"mean", g->mean}, {"max", g->max}, {"samples", g->samples}};
}

ordered_json histogram_json(const std::optional<HistogramWindow>& h) {
  if (!h) return nullptr;
  return ordered_json{{"count", h->count}, {"mean_ms", h->mean_ms}, {"p50_ms", h->p50_ms}, {"p99_ms", h->p99_ms}};
}

ordered_json number_or_null(const std::optional<double>& v) { return v ? ordered_json(*v) : ordered_json(nullptr); }

}  // namespace

const char* to_string(QueueSide side) {
  switch (side) {
    case QueueSide::server_queued:
      return "server_queued";
    case QueueSide::client_queued:
      return "client_queued";
    case QueueSide::agree:
      break;
  }
  return "agree";
}

ordered_json server_metrics_json(const ServerStageMetrics& m) {
  ordered_json j;
  j["dialect"] = m.dialect;
  j["scrapes"] = m.scrapes;
  j["failed_scrapes"] = m.failed_scrapes;
  j["running"] = gauge_json(m.running);
  j["waiting"] = gauge_json(m.waiting);
  j["waiting_share"] = number_or_null(m.waiting_share);
  j["kv_cache_usage"] = gauge_json(m.kv_cache_usage);
  j["preemptions"] = number_or_null(m.preemptions);
  j["prefix_cache_hit_rate"] = number_or_null(m.prefix_cache_hit_rate);
  j["requests_finished"] = number_or_null(m.requests_finished);
  j["prompt_tokens"] = number_or_null(m.prompt_tokens);
  j["generation_tokens"] = number_or_null(m.generation_tokens);
  j["queue_time"] = histogram_json(m.queue_time);
  j["ttft"] = histogram_json(m.ttft);
  j["prefill_time"] = histogram_json(m.prefill_time);
  j["queue_side"] = to_string(m.queue_side);
  return j;
}

ordered_json gpu_telemetry_json(const GpuStageTelemetry& t) {
  ordered_json gpus = ordered_json::array();
  for (const GpuStageStats& g : t.gpus) {
    ordered_json j;
    j["index"] = g.index;
    j["name"] = g.name;
    j["samples"] = g.samples;
    j["utilization_pct"] = gauge_json(g.utilization_pct);
    j["memory_used_mib"] = gauge_json(g.memory_used_mib);
    j["memory_used_pct"] = gauge_json(g.memory_used_pct);
    j["memory_total_mib"] = number_or_null(g.memory_total_mib);
    j["power_w"] = gauge_json(g.power_w);
    j["sm_clock_mhz"] = gauge_json(g.sm_clock_mhz);
    j["memory_clock_mhz"] = gauge_json(g.memory_clock_mhz);
    gpus.push_back(std::move(j));
  }
  return ordered_json{{"tool", t.tool}, {"failed_samples", t.failed_samples}, {"gpus", std::move(gpus)}};
}

}  // namespace sb::report
