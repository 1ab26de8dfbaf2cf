#include "report/tune_text.hpp"

#include <cmath>

#include <fmt/format.h>

#include "report/analysis_text.hpp"
#include "report/compare_table.hpp"
#include "report/kernel_report.hpp"

namespace sb::report {
namespace {

std::string tune_change(double rel) {
  if (std::isnan(rel)) return "-";
  return std::abs(rel) < 0.005 ? "0%" : fmt::format("{:+.0f}%", 100 * rel);
}

std::string knee_cell(const results::Run& run, const analyze::CurveAnalysis& c) {
  return c.knee ? tune_stage_label(run.load_mode, run.stages[*c.knee].load_value) : std::string("none");
}

std::string capacity_cell(const results::Run& run, const analyze::ConfigStanding& st) {
  if (!st.stage) return st.missing.empty() ? "no stage meets the SLOs" : "lacks " + st.missing.front();
  return fmt::format("{} ({:.1f} tok/s)", tune_stage_label(run.load_mode, run.stages[*st.stage].load_value),
                     st.output_throughput);
}

std::string configs_table(const analyze::TuneInput& in, const analyze::TuneAnalysis& a) {
  std::vector<std::vector<std::string>> rows;
  for (std::size_t i = 0; i < in.configs.size(); ++i) {
    const auto& cfg = in.configs[i];
    if (!cfg.run) {
      rows.push_back({cfg.name, "failed", "-", "-", "-"});
      continue;
    }
    const auto& an = *a.results[i].analysis;
    const double peak = an.curve.peak ? cfg.run->stages[*an.curve.peak].request_throughput : 0;
    const double peak_tok = an.curve.peak ? cfg.run->stages[*an.curve.peak].output_throughput : 0;
    rows.push_back({cfg.name, knee_cell(*cfg.run, an.curve), fmt::format("{:.2f}", peak), fmt::format("{:.1f}", peak_tok),
                    capacity_cell(*cfg.run, a.ranking.standings[i])});
  }
  return render_table({"configuration", "knee", "peak req/s", "peak out tok/s", "best stage meeting the SLOs"}, rows);
}

std::string failures_block(const analyze::TuneInput& in) {
  std::string out;
  for (const auto& cfg : in.configs)
    if (!cfg.run) out += fmt::format("failed: {}: {}\n", cfg.name, cfg.failure.empty() ? "no results" : cfg.failure);
  return out;
}

std::string pareto_block(const analyze::TuneInput& in, const analyze::TuneAnalysis& a) {
  if (a.pareto.empty()) return "";
  std::vector<std::vector<std::string>> rows;
  for (const auto& p : a.pareto) {
    const auto& run = *in.configs[p.config].run;
    std::string by = "-";
    if (p.dominated_by) {
      const auto& q = a.pareto[*p.dominated_by];
      by = in.configs[q.config].name + " " + tune_stage_label(run.load_mode, in.configs[q.config].run->stages[q.stage].load_value);
    }
    rows.push_back({in.configs[p.config].name, tune_stage_label(run.load_mode, run.stages[p.stage].load_value),
                    fmt::format("{:.1f}", p.tok_s_per_user), fmt::format("{:.1f}", p.tok_s_per_gpu), by});
  }
  return fmt::format("Pareto view (x: output tok/s per user = 1000 / mean TPOT; y: output tok/s per GPU, {} per "
                     "configuration):\n",
                     in.gpus_per_config) +
         render_table({"configuration", "stage", "tok/s/user", "tok/s/GPU", "dominated by"}, rows);
}

std::string comparison_block(const analyze::TuneInput& in, const analyze::TuneAnalysis& a, std::size_t i) {
  const auto& r = a.results[i];
  if (!r.vs_baseline) return "";
  const auto& c = *r.vs_baseline;
  std::string out = fmt::format("\n== {} vs {} ==\n", in.configs[i].name, in.configs[0].name);
  for (const auto& e : c.equivalence) out += "warning: not comparable: " + difference_text(e) + "\n";
  out += headline_table(c);
  if (c.headline && !c.headline->kernels.empty())
    out += r.headline_kernels_per_stage ? "(kernel rows: mean duration at this stage)\n"
                                        : "(kernel rows: mean duration over the whole traces; they do not align with the stages)\n";
  if (!c.stages.empty()) out += pivot_table(c);
  if (!r.stage_kernels.empty()) out += stage_kernels_table(c.load_mode, r.stage_kernels);
  return out;
}

}  // namespace

std::string tune_stage_label(LoadMode mode, double load_value) {
  const std::string v = std::isinf(load_value) ? "inf" : fmt::format("{:g}", load_value);
  return mode == LoadMode::concurrency ? "c=" + v : "rate " + v;
}

std::string slos_text(const std::vector<analyze::Slo>& slos) {
  std::string out;
  for (const auto& s : slos) out += fmt::format("{}{}<={:g}", out.empty() ? "" : ", ", s.metric, s.limit_ms);
  return out.empty() ? "none" : out;
}

std::string best_config_text(const analyze::TuneInput& in, const analyze::TuneAnalysis& a) {
  const auto& rk = a.ranking;
  using analyze::BestReason;
  if (rk.reason == BestReason::none_ran) return "best: none: no configuration produced results";
  if (rk.reason == BestReason::none_meets) return "best: none: no stage of any configuration meets " + slos_text(in.slos);
  const auto& b = rk.standings[*rk.best];
  const auto& run = *in.configs[*rk.best].run;
  std::string out = fmt::format("best: {} at {}: {:.1f} output tok/s meeting {}", in.configs[*rk.best].name,
                                tune_stage_label(run.load_mode, run.stages[*b.stage].load_value), b.output_throughput,
                                slos_text(in.slos));
  if (!rk.runner_up) return out + " (the only configuration that does)";
  const auto& n = rk.standings[*rk.runner_up];
  const std::string next = fmt::format("{}, {:.1f} tok/s", in.configs[*rk.runner_up].name, n.output_throughput);
  switch (rk.reason) {
    case BestReason::highest_throughput:
      return out + fmt::format("; the highest (next: {}, {} lower)", next,
                               tune_change(1 - n.output_throughput / b.output_throughput).substr(1));
    case BestReason::tie_fewer_gpus:
      return out + fmt::format("; tied within {:g}% with {} and uses fewer GPUs ({} vs {})", 100 * rk.tie_tolerance,
                               next, b.gpus, n.gpus);
    case BestReason::tie_lower_ttft:
      return out + fmt::format("; tied within {:g}% with {}, lower TTFT p99 ({:.1f} vs {:.1f} ms)", 100 * rk.tie_tolerance,
                               next, b.ttft_p99_ms.value_or(NAN), n.ttft_p99_ms.value_or(NAN));
    default:
      return out + fmt::format("; tied with {} on throughput, GPUs and TTFT p99: listed first", next);
  }
}

std::string stage_kernels_table(LoadMode mode, const std::vector<analyze::StageKernelDeltas>& stages) {
  std::vector<std::vector<std::string>> rows;
  const auto us = [](double ns) { return std::isnan(ns) ? std::string("-") : fmt::format("{:.2f}", ns / 1000); };
  for (const auto& s : stages)
    for (const auto& k : s.kernels)
      rows.push_back({tune_stage_label(mode, s.load_value), k.name, us(k.baseline_mean_ns), us(k.tuned_mean_ns),
                      tune_change(k.rel_change), std::isnan(k.tuned_mean_ns) ? "not in the tuned trace"
                                                                             : significance_text(k.significance)});
  if (rows.empty()) return "";
  return "kernel mean per stage (us):\n" +
         render_table({"stage", "kernel", "baseline", "tuned", "change", "significance"}, rows);
}

std::string tune_console(const analyze::TuneInput& in, const analyze::TuneAnalysis& a) {
  std::size_t failed = 0;
  for (const auto& c : in.configs) failed += c.run ? 0 : 1;
  std::string out = fmt::format("tune: {} configurations ({} failed); SLOs: {}\n", in.configs.size(), failed,
                                slos_text(in.slos));
  out += configs_table(in, a) + failures_block(in) + best_config_text(in, a) + "\n";
  for (std::size_t i = 1; i < in.configs.size(); ++i) out += comparison_block(in, a, i);
  const std::string pareto = pareto_block(in, a);
  if (!pareto.empty()) out += "\n" + pareto;
  return out;
}

std::string tune_warning_text(const std::string& config, const std::string& what) {
  return fmt::format("servebench tune: warning: {}: {}\n", config, what);
}

std::string tune_write_error_text(const std::string& path, const std::string& why) {
  return fmt::format("servebench tune: cannot write {}: {}\n", path, why);
}

std::string tune_no_configs_text() { return "servebench tune: no configurations to summarise\n"; }

std::string tune_missing_sweep_text() { return "no sweep document was recorded"; }

}  // namespace sb::report
