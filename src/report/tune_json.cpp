#include "report/tune_json.hpp"

#include <cmath>

#include "report/analysis_json.hpp"

namespace sb::report {
namespace {

using nlohmann::ordered_json;

const char* best_reason_code(analyze::BestReason r) {
  switch (r) {
    case analyze::BestReason::none_ran: return "none_ran";
    case analyze::BestReason::none_meets: return "none_meets";
    case analyze::BestReason::only_one_meets: return "only_one_meets";
    case analyze::BestReason::highest_throughput: return "highest_throughput";
    case analyze::BestReason::tie_fewer_gpus: return "tie_fewer_gpus";
    case analyze::BestReason::tie_lower_ttft: return "tie_lower_ttft";
    case analyze::BestReason::tie_first_listed: return "tie_first_listed";
  }
  return "";
}

const char* significance_code(analyze::Significance s) {
  switch (s) {
    case analyze::Significance::significant: return "significant";
    case analyze::Significance::not_significant: return "not_significant";
    case analyze::Significance::cannot_judge: return "cannot_judge";
  }
  return "";
}

ordered_json number_or_null(double v) { return std::isfinite(v) ? ordered_json(v) : ordered_json(nullptr); }
ordered_json load_json(double v) { return std::isinf(v) ? ordered_json("inf") : ordered_json(v); }

ordered_json kernels_json(const std::vector<analyze::KernelSummary>& ks, std::size_t top) {
  ordered_json out = ordered_json::array();
  for (std::size_t i = 0; i < ks.size() && i < top; ++i)
    out.push_back({{"name", ks[i].name},
                   {"calls", ks[i].calls},
                   {"mean_us", ks[i].mean_ns / 1e3},
                   {"stddev_us", ks[i].stddev_ns / 1e3},
                   {"total_ms", ks[i].total_ns / 1e6}});
  return out;
}

ordered_json config_kernels_json(const analyze::ConfigKernels& k, std::size_t top) {
  ordered_json stages = ordered_json::array();
  for (const auto& s : k.stages) stages.push_back({{"load", load_json(s.load_value)}, {"kernels", kernels_json(s.kernels, top)}});
  return {{"traces", k.traces}, {"placed", k.placed}, {"whole", kernels_json(k.whole, top)},
          {"stages", k.per_stage() ? stages : ordered_json(nullptr)}};
}

ordered_json deltas_json(const std::vector<analyze::KernelDelta>& ks) {
  ordered_json out = ordered_json::array();
  for (const auto& k : ks)
    out.push_back({{"name", k.name},
                   {"baseline_mean_us", number_or_null(k.baseline_mean_ns / 1e3)},
                   {"tuned_mean_us", number_or_null(k.tuned_mean_ns / 1e3)},
                   {"rel_change", number_or_null(k.rel_change)},
                   {"significance", significance_code(k.significance)}});
  return out;
}

ordered_json standing_json(const results::Run& run, const analyze::ConfigStanding& st) {
  if (!st.stage) return {{"stage", nullptr}, {"missing_metrics", st.missing}};
  const auto& s = run.stages[*st.stage];
  return {{"stage", {{"stage_index", s.stage_index}, {"load", load_json(s.load_value)}}},
          {"output_throughput", st.output_throughput},
          {"request_throughput", s.request_throughput},
          {"ttft_p99_ms", st.ttft_p99_ms ? ordered_json(*st.ttft_p99_ms) : ordered_json(nullptr)},
          {"missing_metrics", st.missing}};
}

ordered_json config_json(const analyze::TuneInput& in, const analyze::TuneAnalysis& a, std::size_t i,
                         const std::string& sweep) {
  const auto& cfg = in.configs[i];
  const auto& r = a.results[i];
  ordered_json params = ordered_json::object();
  for (const auto& [k, v] : cfg.params) params[k] = v;
  ordered_json j{{"name", cfg.name}, {"params", params}, {"status", cfg.run ? "ok" : "failed"},
                 {"failure", cfg.run ? ordered_json(nullptr) : ordered_json(cfg.failure)},
                 {"sweep_json", sweep.empty() ? ordered_json(nullptr) : ordered_json(sweep)}};
  if (!cfg.run) return j;
  j["gpus"] = in.gpus_per_config;
  j["analysis"] = run_analysis_json(*cfg.run, *r.analysis);
  j["under_slos"] = standing_json(*cfg.run, a.ranking.standings[i]);
  j["kernels"] = config_kernels_json(r.kernels, in.top_kernels);
  if (r.vs_baseline) {
    j["vs_baseline"] = compare_json(*in.configs[0].run, *cfg.run, *r.vs_baseline, {});
    ordered_json stages = ordered_json::array();
    for (const auto& s : r.stage_kernels) stages.push_back({{"load", load_json(s.load_value)}, {"kernels", deltas_json(s.kernels)}});
    j["vs_baseline_kernels"] = {{"per_stage", r.headline_kernels_per_stage}, {"stages", stages}};
  } else {
    j["vs_baseline"] = nullptr;
  }
  return j;
}

ordered_json best_json(const analyze::TuneInput& in, const analyze::TuneAnalysis& a) {
  const auto& rk = a.ranking;
  ordered_json j{{"reason", best_reason_code(rk.reason)}, {"tie_tolerance", rk.tie_tolerance}};
  j["config"] = rk.best ? ordered_json(in.configs[*rk.best].name) : ordered_json(nullptr);
  j["runner_up"] = rk.runner_up ? ordered_json(in.configs[*rk.runner_up].name) : ordered_json(nullptr);
  if (rk.best) {
    const auto& st = rk.standings[*rk.best];
    j["load"] = load_json(in.configs[*rk.best].run->stages[*st.stage].load_value);
    j["output_throughput"] = st.output_throughput;
  }
  return j;
}

ordered_json pareto_json(const analyze::TuneInput& in, const analyze::TuneAnalysis& a) {
  ordered_json out = ordered_json::array();
  const auto load_of = [&](const analyze::ParetoPoint& p) { return in.configs[p.config].run->stages[p.stage].load_value; };
  for (const auto& p : a.pareto) {
    ordered_json by = nullptr;
    if (p.dominated_by)
      by = {{"config", in.configs[a.pareto[*p.dominated_by].config].name}, {"load", load_json(load_of(a.pareto[*p.dominated_by]))}};
    out.push_back({{"config", in.configs[p.config].name},
                   {"load", load_json(load_of(p))},
                   {"output_tok_s_per_user", p.tok_s_per_user},
                   {"output_tok_s_per_gpu", p.tok_s_per_gpu},
                   {"dominated", p.dominated},
                   {"dominated_by", by}});
  }
  return out;
}

}  // namespace

ordered_json tune_summary_json(const analyze::TuneInput& in, const analyze::TuneAnalysis& a,
                               const std::vector<std::string>& sweep_paths) {
  ordered_json slos = ordered_json::array();
  for (const auto& s : in.slos) slos.push_back({{"metric", s.metric}, {"limit_ms", s.limit_ms}});
  ordered_json configs = ordered_json::array();
  for (std::size_t i = 0; i < in.configs.size(); ++i)
    configs.push_back(config_json(in, a, i, i < sweep_paths.size() ? sweep_paths[i] : ""));
  return {{"schema_version", 1},
          {"kind", "servebench.tune_summary"},
          {"tool", {{"name", "servebench"}, {"version", SB_VERSION}}},
          {"slos", slos},
          {"gpus_per_config", in.gpus_per_config},
          {"baseline", in.configs.empty() ? ordered_json(nullptr) : ordered_json(in.configs[0].name)},
          {"configs", configs},
          {"best", best_json(in, a)},
          {"pareto_axes", {{"x", "output_tok_s_per_user = 1000 / mean_tpot_ms"},
                           {"y", "output_tok_s_per_gpu = output_throughput / gpus"}}},
          {"pareto", pareto_json(in, a)}};
}

}  // namespace sb::report
