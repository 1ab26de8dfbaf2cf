// compare_json (declared in report/analysis_json.hpp): the comparison for scripts, documented in
// docs/compare.md. Formatting only.
#include <cmath>
#include <cstdint>

#include "report/analysis_json.hpp"
#include "report/analysis_text.hpp"
#include "report/compare_gate_text.hpp"
#include "report/compare_table.hpp"

namespace sb::report {
namespace {

using nlohmann::ordered_json;

ordered_json cmp_num(double v) {
  if (std::isnan(v)) return nullptr;
  if (std::isinf(v)) return "inf";
  return v;
}

// Concurrency levels and whole rates read as integers, as vLLM writes max_concurrency.
ordered_json cmp_load(double v) {
  if (std::isfinite(v) && v == std::floor(v) && std::abs(v) < 1e15) return static_cast<std::int64_t>(v);
  return cmp_num(v);
}

ordered_json cmp_opt(const std::optional<double>& v) { return v ? cmp_num(*v) : ordered_json(nullptr); }

ordered_json cmp_interval(const std::optional<analyze::Interval>& ci) {
  return ci ? ordered_json::array({ci->low, ci->high}) : ordered_json(nullptr);
}

ordered_json cmp_delta(const analyze::MetricDelta& d) {
  ordered_json j;
  j["metric"] = d.metric;
  j["baseline"] = cmp_opt(d.baseline);
  j["tuned"] = cmp_opt(d.tuned);
  j["abs_change"] = cmp_num(d.abs_change);
  j["rel_change"] = cmp_num(d.rel_change);
  j["higher_is_better"] = d.higher_is_better;
  j["significance"] = significance_text(d.significance);
  j["ci"] = cmp_interval(d.ci);
  j["note"] = judgement_text(d);
  return j;
}

const char* basis_key(analyze::HeadlineBasis b) {
  switch (b) {
    case analyze::HeadlineBasis::named_load: return "named_load";
    case analyze::HeadlineBasis::baseline_knee: return "baseline_knee";
    case analyze::HeadlineBasis::tuned_knee: return "tuned_knee";
    case analyze::HeadlineBasis::most_loaded: return "most_loaded";
  }
  return "?";
}

ordered_json headline_json(const analyze::Comparison& c) {
  if (!c.headline) return nullptr;
  const auto& h = *c.headline;
  ordered_json j;
  j["load_value"] = cmp_load(c.stages[h.stage].load_value);
  j["basis"] = basis_key(h.basis);
  j["metrics"] = ordered_json::array();
  for (const auto& d : h.deltas) j["metrics"].push_back(cmp_delta(d));
  j["kernels"] = ordered_json::array();
  for (const auto& k : h.kernels)
    j["kernels"].push_back({{"name", k.name},
                            {"baseline_mean_ns", cmp_num(k.baseline_mean_ns)},
                            {"tuned_mean_ns", cmp_num(k.tuned_mean_ns)},
                            {"rel_change", cmp_num(k.rel_change)},
                            {"significance", significance_text(k.significance)},
                            {"ci_ns", cmp_interval(k.ci)}});
  return j;
}

ordered_json verdict_json(const analyze::GateVerdict& v) {
  ordered_json j;
  j["rule"] = v.rule;
  j["metric"] = v.metric;
  j["load_value"] = cmp_load(v.load_value);
  j["verdict"] = gate_outcome_key(v.outcome);
  j["failed"] = v.failed();
  j["rel_change"] = cmp_num(v.rel_change);
  j["abs_change"] = cmp_num(v.abs_change);
  j["limit_rel"] = v.limit_rel;
  j["floor_abs"] = cmp_opt(v.floor_abs);
  j["ci"] = cmp_interval(v.ci);
  j["message"] = gate_verdict_text(v);
  return j;
}

ordered_json gate_json(const GateResult& gate) {
  ordered_json g;
  g["rules"] = ordered_json::array();
  for (const auto& r : gate.rules) g["rules"].push_back(r.text);
  g["verdicts"] = ordered_json::array();
  for (const auto& v : gate.verdicts) g["verdicts"].push_back(verdict_json(v));
  g["violations"] = ordered_json::array();
  for (const auto& v : gate.violations) g["violations"].push_back({{"rule", v.rule}, {"message", violation_text(v)}});
  g["passed"] = gate.violations.empty();
  return g;
}

}  // namespace

ordered_json compare_json(const results::Run& baseline, const results::Run& tuned, const analyze::Comparison& c,
                          const GateResult& gate) {
  ordered_json j;
  j["schema_version"] = 1;
  j["kind"] = "servebench.comparison";
  j["baseline"] = {{"source", baseline.source}, {"label", baseline.label}, {"load_mode", to_string(baseline.load_mode)}};
  j["tuned"] = {{"source", tuned.source}, {"label", tuned.label}, {"load_mode", to_string(tuned.load_mode)}};
  j["load_mode"] = to_string(c.load_mode);
  j["comparable"] = c.equivalence.empty();
  j["equivalence_warnings"] = difference_texts(c.equivalence);
  j["headline"] = headline_json(c);
  ordered_json stages = ordered_json::array();
  for (const auto& sc : c.stages) {
    ordered_json s;
    s["load_value"] = cmp_load(sc.load_value);
    s["metrics"] = ordered_json::array();
    for (const auto& d : sc.deltas) s["metrics"].push_back(cmp_delta(d));
    stages.push_back(std::move(s));
  }
  j["stages"] = std::move(stages);
  j["unmatched_loads"] = ordered_json::array();
  for (double v : c.unmatched_loads) j["unmatched_loads"].push_back(cmp_load(v));
  auto knee_load = [](const std::optional<double>& v) { return v ? cmp_load(*v) : ordered_json(nullptr); };
  j["knee_shift"] = {{"baseline", knee_load(c.baseline_knee_load)}, {"tuned", knee_load(c.tuned_knee_load)}};
  j["peak_rps"] = {{"baseline", c.baseline_peak_rps}, {"tuned", c.tuned_peak_rps}};
  j["hints"] = hint_texts(c.hints);
  j["gate"] = gate_json(gate);
  return j;
}

}  // namespace sb::report
