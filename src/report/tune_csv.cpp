#include "report/tune_csv.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "report/csv_table.hpp"

namespace sb::report {
namespace {

std::string tune_cell(std::optional<double> v) {
  if (!v) return "";
  if (std::isinf(*v)) return "inf";
  return fmt::format("{}", *v);
}

void end_row(std::string& out, const std::vector<std::string>& fields) {
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (i) out += ',';
    append_csv_field(out, fields[i]);
  }
  out += "\r\n";
}

std::vector<std::string> param_names(const analyze::TuneInput& in) {
  std::vector<std::string> names;
  for (const auto& c : in.configs)
    for (const auto& [k, v] : c.params)
      if (std::find(names.begin(), names.end(), k) == names.end()) names.push_back(k);
  return names;
}

std::string param_of(const analyze::TuneConfigInput& c, const std::string& name) {
  for (const auto& [k, v] : c.params)
    if (k == name) return v;
  return "";
}

const analyze::ParetoPoint* point_of(const analyze::TuneAnalysis& a, std::size_t config, std::size_t stage) {
  for (const auto& p : a.pareto)
    if (p.config == config && p.stage == stage) return &p;
  return nullptr;
}

}  // namespace

std::string tune_summary_csv(const analyze::TuneInput& in, const analyze::TuneAnalysis& a) {
  const std::vector<std::string> params = param_names(in);
  std::vector<std::string> header{"config", "status", "failure"};
  header.insert(header.end(), params.begin(), params.end());
  for (const char* h : {"load_mode", "load_value", "completed", "failed", "request_throughput", "output_throughput",
                        "p99_ttft_ms", "mean_tpot_ms", "output_tok_s_per_user", "output_tok_s_per_gpu",
                        "pareto_dominated", "meets_slos", "knee", "best"})
    header.push_back(h);
  std::string out;
  end_row(out, header);
  for (std::size_t c = 0; c < in.configs.size(); ++c) {
    const auto& cfg = in.configs[c];
    std::vector<std::string> lead{cfg.name, cfg.run ? "ok" : "failed", cfg.run ? "" : cfg.failure};
    for (const auto& p : params) lead.push_back(param_of(cfg, p));
    if (!cfg.run) {
      lead.resize(header.size());
      end_row(out, lead);
      continue;
    }
    const auto& an = *a.results[c].analysis;
    const auto& st = a.ranking.standings[c];
    for (std::size_t s = 0; s < cfg.run->stages.size(); ++s) {
      const results::Stage& stage = cfg.run->stages[s];
      const analyze::ParetoPoint* pt = point_of(a, c, s);
      const auto& tpot = stage.stats(results::Metric::tpot);
      std::vector<std::string> row = lead;
      const bool best_here = a.ranking.best == c && st.stage == s;
      for (const std::string& v : std::initializer_list<std::string>{std::string(to_string(cfg.run->load_mode)), tune_cell(stage.load_value), std::to_string(stage.completed),
            std::to_string(stage.failed), tune_cell(stage.request_throughput), tune_cell(stage.output_throughput),
            tune_cell(stage.percentile(results::Metric::ttft, 99)), tune_cell(tpot ? tpot->mean : std::nullopt),
            pt ? tune_cell(pt->tok_s_per_user) : "", pt ? tune_cell(pt->tok_s_per_gpu) : "",
            pt ? (pt->dominated ? "true" : "false") : "", analyze::stage_meets_slos(stage, in.slos) ? "true" : "false",
            an.curve.knee == s ? "true" : "false", best_here ? "true" : "false"})
        row.push_back(v);
      end_row(out, row);
    }
  }
  return out;
}

}  // namespace sb::report
