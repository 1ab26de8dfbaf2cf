#include "report/analysis_json.hpp"

#include <cmath>
#include <cstdint>

#include "report/analysis_text.hpp"

namespace sb::report {
namespace {

using nlohmann::ordered_json;

ordered_json num(double v) {
  if (std::isnan(v)) return nullptr;
  if (std::isinf(v)) return "inf";
  return v;
}

// Concurrency levels and whole rates read as integers, as vLLM writes max_concurrency.
ordered_json load_num(double v) {
  if (std::isfinite(v) && v == std::floor(v) && std::abs(v) < 1e15) return static_cast<std::int64_t>(v);
  return num(v);
}

ordered_json opt(const std::optional<double>& v) { return v ? num(*v) : ordered_json(nullptr); }

const char* load_key(const results::Run& run) {
  return run.load_mode == LoadMode::concurrency ? "max_concurrency" : "request_rate";
}

ordered_json stage_ref(const results::Run& run, std::optional<std::size_t> i) {
  if (!i) return nullptr;
  const auto& s = run.stages[*i];
  ordered_json j;
  j["stage_index"] = s.stage_index;
  j[load_key(run)] = load_num(s.load_value);
  j["request_throughput"] = s.request_throughput;
  return j;
}

// Where capacity ends as load values, the point estimate and the evidence; null without a knee.
ordered_json knee_bracket_json(const analyze::CurveAnalysis& c) {
  if (!c.knee) return nullptr;
  ordered_json j;
  j["lo"] = opt(c.knee_lo);
  j["hi"] = opt(c.knee_hi);
  j["estimate"] = opt(c.knee_estimate);
  j["estimate_method"] = to_string(c.estimate_method);
  j["reason_code"] = to_string(c.knee_reason);
  j["plateau_throughput"] = num(c.plateau_throughput);
  j["entering_elasticity"] = num(c.entering_elasticity);
  j["later_elasticity"] = num(c.later_elasticity);
  j["lower_elasticity"] = num(c.lower_elasticity);
  j["saturation_elasticity"] = c.params.saturation_elasticity;
  j["plateau_tolerance"] = c.params.plateau_tolerance;
  return j;
}

ordered_json capacity_json(const analyze::RunAnalysis& a) {
  ordered_json j = ordered_json::object();
  if (a.replicas) {
    const auto& r = *a.replicas;
    j["target_qps"] = r.target_qps;
    j["knee_rps"] = opt(r.knee_rps);
    j["replicas_at_knee"] = r.replicas_at_knee ? ordered_json(*r.replicas_at_knee) : ordered_json(nullptr);
    j["peak_rps"] = r.peak_rps;
    j["replicas_at_peak"] = r.replicas_at_peak ? ordered_json(*r.replicas_at_peak) : ordered_json(nullptr);
  }
  return j;
}

ordered_json slo_json(const results::Run& run, const analyze::RunAnalysis& a) {
  if (!a.slo) return nullptr;
  ordered_json j;
  j["highest_stage_meeting_slo"] = stage_ref(run, a.slo->stage);
  j["missing_metrics"] = a.slo->missing;
  j["goodput"] = opt(a.slo->goodput);
  j["goodput_source"] = report::goodput_source_text(*a.slo);
  return j;
}

}  // namespace

ordered_json run_analysis_json(const results::Run& run, const analyze::RunAnalysis& a) {
  ordered_json j;
  j["source"] = run.source;
  j["label"] = run.label;
  j["format"] = run.format;
  j["load_mode"] = to_string(run.load_mode);
  j["knee"] = stage_ref(run, a.curve.knee);
  const std::string knee_reason = report::knee_reason_text(a.curve);
  if (a.curve.knee) j["knee"]["reason"] = knee_reason;
  j["knee_reason"] = knee_reason;
  j["knee_bracket"] = knee_bracket_json(a.curve);
  j["peak"] = stage_ref(run, a.curve.peak);
  j["ttft_rise"] = stage_ref(run, a.curve.ttft_rise);
  ordered_json regions = ordered_json::array();
  for (std::size_t i = 0; i < a.curve.regions.size(); ++i) {
    const analyze::StageRegion& r = a.curve.regions[i];
    regions.push_back({{"stage_index", run.stages[i].stage_index},
                       {load_key(run), load_num(run.stages[i].load_value)},
                       {"region", to_string(r.region)},
                       {"reason", report::region_reason_text(r)},
                       {"reason_code", to_string(r.reason)},
                       {"elasticity", num(r.elasticity)},
                       {"share_of_peak", r.peak_throughput > 0 ? num(r.throughput / r.peak_throughput) : nullptr},
                       {"failure_ratio", num(r.failure_ratio)}});
  }
  j["regions"] = std::move(regions);
  j["capacity"] = capacity_json(a);
  j["slo"] = slo_json(run, a);
  ordered_json w = ordered_json::array();
  for (const auto& x : a.warnings)
    w.push_back({{"kind", to_string(x.kind)}, {"stage", x.stage}, {"message", report::warning_text(x)}});
  j["warnings"] = std::move(w);
  return j;
}

ordered_json report_json(const std::vector<results::Run>& runs, const std::vector<analyze::RunAnalysis>& as) {
  ordered_json j;
  j["schema_version"] = 1;
  j["kind"] = "servebench.analysis";
  j["runs"] = ordered_json::array();
  for (std::size_t i = 0; i < runs.size(); ++i) j["runs"].push_back(run_analysis_json(runs[i], as[i]));
  return j;
}

}  // namespace sb::report
