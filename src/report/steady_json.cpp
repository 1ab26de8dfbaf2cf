#include "report/steady_json.hpp"

#include <string>

#include "analyze/steady_checks.hpp"

namespace sb::report {

using nlohmann::ordered_json;

namespace {

template <class T>
ordered_json or_null(const std::optional<T>& v) {
  return v ? ordered_json(*v) : ordered_json(nullptr);
}

}  // namespace

void append_steady_keys(ordered_json& out, const StageSummary& s) {
  if (!s.steady) return;
  const SteadyState& st = *s.steady;
  out["window_start_s"] = st.window_start_s;
  out["window_s"] = st.window_s;
  out["held_fraction"] = or_null(st.held_fraction);
  out["mean_in_flight"] = st.mean_in_flight;
  out["steady_request_throughput"] = st.request_throughput;
  out["steady_output_throughput"] = st.output_throughput;
  const std::pair<const char*, const MetricStats*> metrics[] = {
      {"ttft", &st.ttft}, {"tpot", &st.tpot}, {"itl", &st.itl}, {"e2el", &st.e2el}};
  for (const auto& [name, m] : metrics) {
    const std::string n = name;
    out["steady_mean_" + n + "_ms"] = m->mean_ms;
    out["steady_median_" + n + "_ms"] = m->median_ms;
    out["steady_p99_" + n + "_ms"] = m->percentile_ms(99);
  }
}

ordered_json steady_state_json(const StageSummary& s) {
  if (!s.steady) return nullptr;
  const SteadyState& st = *s.steady;
  ordered_json j;
  j["duration_bounded"] = st.duration_bounded;
  j["target_in_flight"] = st.target_in_flight;
  j["started"] = st.started;
  j["completed"] = st.completed;
  j["littles_law_ratio"] = st.littles_law_ratio;
  j["rate_fraction"] = or_null(st.rate_fraction);
  j["steady_rate_fraction"] = or_null(st.steady_rate_fraction);
  j["sub_windows"] = ordered_json{{"request_throughput", st.sub_request_throughput},
                                  {"median_ttft_ms", st.sub_ttft_median_ms},
                                  {"min_completed", st.sub_min_completed},
                                  {"throughput_spread", st.throughput_spread},
                                  {"ttft_spread", st.ttft_spread}};
  ordered_json findings = ordered_json::array();
  for (const analyze::SteadyFinding& f : analyze::steady_findings(s))
    findings.push_back({{"kind", analyze::to_string(f.issue)}, {"value", f.value}, {"limit", f.limit}});
  j["warnings"] = std::move(findings);
  return j;
}

}  // namespace sb::report
