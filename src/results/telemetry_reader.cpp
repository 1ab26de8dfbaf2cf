#include "results/telemetry_reader.hpp"

#include "results/json_fields.hpp"

namespace sb::results::detail {

namespace {

using nlohmann::json;

std::optional<double> optional_number(const json& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

std::optional<GaugeStats> gauge_at(const json& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_object()) return std::nullopt;
  return GaugeStats{number_or(*it, "mean", 0), number_or(*it, "max", 0),
                    static_cast<int>(number_or(*it, "samples", 0))};
}

std::optional<HistogramWindow> histogram_at(const json& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_object()) return std::nullopt;
  return HistogramWindow{number_or(*it, "count", 0), number_or(*it, "mean_ms", 0), number_or(*it, "p50_ms", 0),
                         number_or(*it, "p99_ms", 0)};
}

QueueSide queue_side_named(const std::string& name) {
  if (name == "server_queued") return QueueSide::server_queued;
  if (name == "client_queued") return QueueSide::client_queued;
  return QueueSide::agree;
}

ServerStageMetrics server_from(const json& j) {
  ServerStageMetrics m;
  m.dialect = string_or(j, "dialect", "unknown");
  m.scrapes = static_cast<int>(number_or(j, "scrapes", 0));
  m.failed_scrapes = static_cast<int>(number_or(j, "failed_scrapes", 0));
  m.running = gauge_at(j, "running");
  m.waiting = gauge_at(j, "waiting");
  m.kv_cache_usage = gauge_at(j, "kv_cache_usage");
  m.waiting_share = optional_number(j, "waiting_share");
  m.preemptions = optional_number(j, "preemptions");
  m.prefix_cache_hit_rate = optional_number(j, "prefix_cache_hit_rate");
  m.requests_finished = optional_number(j, "requests_finished");
  m.prompt_tokens = optional_number(j, "prompt_tokens");
  m.generation_tokens = optional_number(j, "generation_tokens");
  m.queue_time = histogram_at(j, "queue_time");
  m.ttft = histogram_at(j, "ttft");
  m.prefill_time = histogram_at(j, "prefill_time");
  m.queue_side = queue_side_named(string_or(j, "queue_side", "agree"));
  return m;
}

GpuStageTelemetry gpu_from(const json& j) {
  GpuStageTelemetry t;
  t.tool = string_or(j, "tool");
  t.failed_samples = static_cast<int>(number_or(j, "failed_samples", 0));
  const auto gpus = j.find("gpus");
  if (gpus == j.end() || !gpus->is_array()) return t;
  for (const json& g : *gpus) {
    if (!g.is_object()) continue;
    GpuStageStats s;
    s.index = static_cast<int>(number_or(g, "index", 0));
    s.name = string_or(g, "name");
    s.samples = static_cast<int>(number_or(g, "samples", 0));
    s.utilization_pct = gauge_at(g, "utilization_pct");
    s.memory_used_mib = gauge_at(g, "memory_used_mib");
    s.memory_used_pct = gauge_at(g, "memory_used_pct");
    s.memory_total_mib = optional_number(g, "memory_total_mib");
    s.power_w = gauge_at(g, "power_w");
    s.sm_clock_mhz = gauge_at(g, "sm_clock_mhz");
    s.memory_clock_mhz = gauge_at(g, "memory_clock_mhz");
    t.gpus.push_back(std::move(s));
  }
  return t;
}

}  // namespace

void read_telemetry_keys(const json& sb, Stage& s) {
  if (auto it = sb.find("server_metrics"); it != sb.end() && it->is_object()) s.server = server_from(*it);
  if (auto it = sb.find("gpu_telemetry"); it != sb.end() && it->is_object()) s.gpu = gpu_from(*it);
}

void read_time_scale(const json& doc, double& server_time_scale, double& time_factor) {
  server_time_scale = time_factor = 1;
  const auto env = doc.find("environment");
  if (env == doc.end() || !env->is_object()) return;
  const auto positive = [&](const char* key, double& out) {
    const auto it = env->find(key);
    if (it != env->end() && it->is_number() && it->get<double>() > 0) out = it->get<double>();
  };
  positive("server_time_scale", server_time_scale);
  positive("time_factor", time_factor);
}

std::optional<HostClocks> read_clocks_at_start(const json& doc) {
  const auto env = doc.find("environment");
  if (env == doc.end() || !env->is_object()) return std::nullopt;
  const auto c = env->find("clocks_at_start");
  if (c == env->end() || !c->is_object()) return std::nullopt;
  HostClocks h;
  const std::pair<const char*, std::int64_t*> fields[] = {{"steady_ns", &h.steady_ns},
                                                          {"realtime_ns", &h.realtime_ns},
                                                          {"monotonic_ns", &h.monotonic_ns},
                                                          {"monotonic_raw_ns", &h.monotonic_raw_ns},
                                                          {"boottime_ns", &h.boottime_ns}};
  for (const auto& [key, out] : fields) {
    const auto it = c->find(key);
    if (it == c->end() || !it->is_number_integer()) return std::nullopt;
    *out = it->get<std::int64_t>();
  }
  return h;
}

}  // namespace sb::results::detail
