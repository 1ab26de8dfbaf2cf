#include "report/client_use_json.hpp"

namespace sb::report {

using nlohmann::ordered_json;

const char* to_string(ClientLimit l) noexcept {
  switch (l) {
    case ClientLimit::cpu: return "cpu";
    case ClientLimit::concurrency_limit: return "concurrency_limit";
    case ClientLimit::none: break;
  }
  return "none";
}

const char* to_string(CeilingSource s) noexcept {
  switch (s) {
    case CeilingSource::cache: return "cache";
    case CeilingSource::file: return "file";
    case CeilingSource::probe: break;
  }
  return "probe";
}

ordered_json ceiling_json(const ClientCeiling& c) {
  return ordered_json{{"threads", c.threads},
                      {"events_per_cpu_s", c.events_per_cpu_s},
                      {"events_per_s", c.events_per_s},
                      {"requests_per_s", c.requests_per_s},
                      {"timestamp_overhead_ns", c.timestamp_overhead_ns},
                      {"timer_overshoot_p99_us", c.timer_overshoot_p99_us},
                      {"dispatch_lag_p99_ms", c.dispatch_lag_p99_ms},
                      {"dispatch_rate", c.dispatch_rate},
                      {"measured_unix_s", c.measured_unix_s},
                      {"source", to_string(c.source)}};
}

std::optional<ClientCeiling> ceiling_from_json(const nlohmann::json& j) {
  if (!j.is_object()) return std::nullopt;
  ClientCeiling c;
  const std::pair<const char*, double*> numbers[] = {
      {"events_per_cpu_s", &c.events_per_cpu_s},         {"events_per_s", &c.events_per_s},
      {"requests_per_s", &c.requests_per_s},             {"timestamp_overhead_ns", &c.timestamp_overhead_ns},
      {"timer_overshoot_p99_us", &c.timer_overshoot_p99_us}, {"dispatch_lag_p99_ms", &c.dispatch_lag_p99_ms},
      {"dispatch_rate", &c.dispatch_rate},               {"measured_unix_s", &c.measured_unix_s}};
  for (const auto& [key, field] : numbers) {
    const auto it = j.find(key);
    if (it == j.end() || !it->is_number()) return std::nullopt;
    *field = it->get<double>();
  }
  const auto threads = j.find("threads");
  if (threads == j.end() || !threads->is_number_integer()) return std::nullopt;
  c.threads = threads->get<int>();
  return c;
}

ordered_json client_use_json(const ClientUse& u) {
  return ordered_json{{"threads", u.threads},
                      {"events_per_s", u.events_per_s},
                      {"cpu_s", u.cpu_s},
                      {"busiest_thread_busy", u.busiest_thread_busy},
                      {"ceiling_fraction", u.ceiling_fraction ? ordered_json(*u.ceiling_fraction) : ordered_json(nullptr)}};
}

}  // namespace sb::report
