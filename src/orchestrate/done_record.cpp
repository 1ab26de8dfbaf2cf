#include "orchestrate/done_record.hpp"

#include <array>
#include <nlohmann/json.hpp>

namespace sb::orchestrate {

namespace {

using Json = nlohmann::ordered_json;

constexpr std::array kOutcomeKeys{"ran", "spawn_failed", "exited_at_start", "not_ready", "run_failed", "interrupted"};
constexpr std::array kCauseKeys{"cuda_oom", "hip_oom", "port_in_use", "bad_flag", "unknown"};
constexpr std::array kTraceKeys{"not_asked", "found", "missing", "empty", "header_only"};

template <typename Enum, std::size_t N>
Enum enum_of(const std::array<const char*, N>& keys, const std::string& key, Enum fallback) {
  for (std::size_t i = 0; i < N; ++i)
    if (key == keys[i]) return static_cast<Enum>(i);
  return fallback;
}

}  // namespace

std::string_view config_outcome_key(ConfigOutcome o) { return kOutcomeKeys[static_cast<std::size_t>(o)]; }
std::string_view log_cause_key(LogCause c) { return kCauseKeys[static_cast<std::size_t>(c)]; }
std::string_view trace_outcome_key(TraceOutcome t) { return kTraceKeys[static_cast<std::size_t>(t)]; }

std::string record_json(const ConfigRecord& r) {
  Json j;
  j["kind"] = "servebench.tune_config";
  j["name"] = r.name;
  Json params = Json::object();
  for (const auto& [k, v] : r.params) params[k] = v;
  j["params"] = params;
  j["outcome"] = config_outcome_key(r.outcome);
  if (r.outcome != ConfigOutcome::ran) {
    j["cause"] = log_cause_key(r.cause);
    j["failure"] = r.failure;
  }
  j["command"] = r.command;
  j["port"] = r.port;
  j["sweep_json"] = r.sweep_json;
  j["kernel_traces"] = r.kernel_traces;
  j["traces"] = trace_outcome_key(r.traces);
  j["run_exit_code"] = r.run_exit_code;
  j["ready_s"] = r.ready_s;
  j["total_s"] = r.total_s;
  return j.dump(2) + "\n";
}

std::optional<ConfigRecord> parse_record(std::string_view text) {
  const Json j = Json::parse(text, nullptr, false);
  if (!j.is_object()) return std::nullopt;
  try {
    if (j.value("kind", "") != "servebench.tune_config") return std::nullopt;
    ConfigRecord r;
    r.name = j.at("name").get<std::string>();
    const Json params = j.value("params", Json::object());  // a named object: items() must not outlive it
    for (const auto& [k, v] : params.items()) r.params.emplace_back(k, v.get<std::string>());
    r.outcome = enum_of(kOutcomeKeys, j.value("outcome", ""), ConfigOutcome::run_failed);
    r.cause = enum_of(kCauseKeys, j.value("cause", ""), LogCause::unknown);
    r.failure = j.value("failure", "");
    r.command = j.value("command", "");
    r.port = j.value("port", 0);
    r.sweep_json = j.value("sweep_json", "");
    r.kernel_traces = j.value("kernel_traces", std::vector<std::string>{});
    r.traces = enum_of(kTraceKeys, j.value("traces", ""), TraceOutcome::not_asked);
    r.run_exit_code = j.value("run_exit_code", 0);
    r.ready_s = j.value("ready_s", 0.0);
    r.total_s = j.value("total_s", 0.0);
    return r;
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;  // a hand-edited record: run the configuration again rather than guess
  }
}

}  // namespace sb::orchestrate
