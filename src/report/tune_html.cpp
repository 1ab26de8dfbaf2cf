#include "report/tune_html.hpp"

#include <cmath>

#include <fmt/format.h>

#include "report/compare_table.hpp"
#include "report/html_view.hpp"
#include "report/tune_text.hpp"

namespace sb::report {
namespace {

std::string html_change(double rel) { return std::isnan(rel) ? "-" : fmt::format("{:+.0f}%", std::round(100 * rel) + 0.0); }

Table configs_html_table(const analyze::TuneInput& in, const analyze::TuneAnalysis& a) {
  Table t;
  t.header = {"configuration", "status", "knee", "peak req/s", "best stage meeting the SLOs", "output tok/s there"};
  t.caption = "configurations (SLOs: " + slos_text(in.slos) + ")";
  for (std::size_t i = 0; i < in.configs.size(); ++i) {
    const auto& cfg = in.configs[i];
    if (!cfg.run) {
      t.rows.push_back({cfg.name, "failed: " + cfg.failure, "-", "-", "-", "-"});
      continue;
    }
    const auto& curve = a.results[i].analysis->curve;
    const auto& st = a.ranking.standings[i];
    const auto label = [&](std::size_t s) { return tune_stage_label(cfg.run->load_mode, cfg.run->stages[s].load_value); };
    t.rows.push_back({cfg.name, "ok", curve.knee ? label(*curve.knee) : "none",
                      curve.peak ? fmt::format("{:.2f}", cfg.run->stages[*curve.peak].request_throughput) : "-",
                      st.stage ? label(*st.stage) : "none", st.stage ? fmt::format("{:.1f}", st.output_throughput) : "-"});
  }
  return t;
}

Table headline_html_table(const analyze::TuneInput& in, const analyze::TuneAnalysis& a, std::size_t i) {
  const auto& c = *a.results[i].vs_baseline;
  Table t;
  t.header = {"metric", in.configs[0].name, in.configs[i].name, "change"};
  const auto& h = *c.headline;
  t.caption = fmt::format("{} vs {} at {} ({})", in.configs[i].name, in.configs[0].name,
                          tune_stage_label(c.load_mode, c.stages[h.stage].load_value), headline_basis_text(h.basis));
  const auto cell = [](std::optional<double> v) { return v ? fmt::format("{:.2f}", *v) : std::string("-"); };
  for (const auto& d : h.deltas) t.rows.push_back({metric_label(d.metric), cell(d.baseline), cell(d.tuned), html_change(d.rel_change)});
  const auto us = [](double ns) { return std::isnan(ns) ? std::string("-") : fmt::format("{:.2f} us", ns / 1000); };
  for (const auto& k : h.kernels)
    t.rows.push_back({k.name + " mean", us(k.baseline_mean_ns), us(k.tuned_mean_ns), html_change(k.rel_change)});
  return t;
}

Table stage_kernels_html_table(const analyze::TuneInput& in, const analyze::TuneAnalysis& a, std::size_t i) {
  Table t;
  t.header = {"stage", "kernel", in.configs[0].name + " mean (us)", in.configs[i].name + " mean (us)", "change"};
  t.caption = "kernels per stage: " + in.configs[i].name + " vs " + in.configs[0].name;
  const auto us = [](double ns) { return std::isnan(ns) ? std::string("-") : fmt::format("{:.2f}", ns / 1000); };
  const LoadMode mode = a.results[i].vs_baseline->load_mode;
  for (const auto& s : a.results[i].stage_kernels)
    for (const auto& k : s.kernels)
      t.rows.push_back({tune_stage_label(mode, s.load_value), k.name, us(k.baseline_mean_ns), us(k.tuned_mean_ns),
                        html_change(k.rel_change)});
  return t;
}

Scatter pareto_scatter(const analyze::TuneInput& in, const analyze::TuneAnalysis& a) {
  Scatter sc;
  sc.title = fmt::format("Pareto view: output tok/s per GPU ({} per configuration) against output tok/s per user "
                         "(1000 / mean TPOT)",
                         in.gpus_per_config);
  sc.x_label = "output tok/s per user";
  sc.y_label = "output tok/s per GPU";
  std::vector<std::size_t> series_of(in.configs.size(), 0);
  for (std::size_t c = 0; c < in.configs.size(); ++c)
    if (in.configs[c].run) series_of[c] = sc.series.size(), sc.series.push_back(in.configs[c].name);
  for (const auto& p : a.pareto) {
    const auto& run = *in.configs[p.config].run;
    sc.points.push_back({series_of[p.config],
                         in.configs[p.config].name + " " + tune_stage_label(run.load_mode, run.stages[p.stage].load_value),
                         p.tok_s_per_user, p.tok_s_per_gpu, p.dominated});
  }
  return sc;
}

}  // namespace

Document tune_html_document(const analyze::TuneInput& in, const analyze::TuneAnalysis& a) {
  std::vector<results::Run> runs;
  std::vector<analyze::RunAnalysis> analyses;
  for (std::size_t i = 0; i < in.configs.size(); ++i) {
    if (!in.configs[i].run) continue;
    runs.push_back(*in.configs[i].run);
    runs.back().label = in.configs[i].name;
    analyses.push_back(*a.results[i].analysis);
  }
  Document d = html_document(runs, analyses);
  d.title = "servebench tune";
  d.notes.push_back(best_config_text(in, a));
  d.tables.push_back(configs_html_table(in, a));
  for (std::size_t i = 1; i < in.configs.size(); ++i) {
    const auto& r = a.results[i];
    if (!r.vs_baseline) continue;
    if (r.vs_baseline->headline) d.tables.push_back(headline_html_table(in, a, i));
    if (!r.stage_kernels.empty()) d.tables.push_back(stage_kernels_html_table(in, a, i));
    Table pivot = compare_pivot(*r.vs_baseline);
    pivot.caption = in.configs[i].name + " vs " + in.configs[0].name + " by load: " + pivot.caption;
    d.tables.push_back(std::move(pivot));
  }
  if (!a.pareto.empty()) d.scatter = pareto_scatter(in, a);
  return d;
}

}  // namespace sb::report
