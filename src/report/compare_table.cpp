#include "report/compare_table.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "report/analysis_text.hpp"
#include "report/compare_gate_text.hpp"

namespace sb::report {
namespace {

std::string load_text_of(double v) { return std::isinf(v) ? "inf" : fmt::format("{:g}", v); }

// "+28%"; a change that rounds to 0 is "0%" rather than "-0%".
std::string change_percent(double rel) {
  if (std::isnan(rel)) return "-";
  if (std::abs(rel) < 0.005) return "0%";
  return fmt::format("{:+.0f}%", 100 * rel);
}

std::string value_cell(std::optional<double> v) { return v ? fmt::format("{:.2f}", *v) : std::string("-"); }

const char* significance_mark(analyze::Significance s) {
  switch (s) {
    case analyze::Significance::significant: return "*";
    case analyze::Significance::not_significant: return " ";
    case analyze::Significance::cannot_judge: return "?";
  }
  return " ";
}

// Kernel names run to hundreds of characters (templates); the head is what tells them apart.
std::string short_kernel_name(const std::string& name) {
  constexpr std::size_t kMax = 32;
  return name.size() <= kMax ? name : name.substr(0, kMax - 3) + "...";
}

std::string kernel_label(const analyze::KernelDelta& k) { return "kernel " + short_kernel_name(k.name) + " (us)"; }

std::string headline_row(std::size_t width, const std::string& label, const std::string& base,
                         const std::string& tuned, const std::string& change, const std::string& significance) {
  return fmt::format("{:<{}} {:>10} {:>10} {:>7}  {}\n", label, width, base, tuned, change, significance);
}

std::string kernel_rows(std::size_t width, const std::vector<analyze::KernelDelta>& ks) {
  std::string out;
  for (const auto& k : ks) {
    auto us = [](double ns) { return std::isnan(ns) ? std::string("-") : fmt::format("{:.2f}", ns / 1000); };
    out += headline_row(width, kernel_label(k), us(k.baseline_mean_ns), us(k.tuned_mean_ns),
                        change_percent(k.rel_change),
                        std::isnan(k.tuned_mean_ns) ? "not in the tuned trace" : significance_text(k.significance));
  }
  return out;
}

std::string warnings_block(const analyze::Comparison& c) {
  std::string out;
  for (const auto& e : c.equivalence) out += "warning: not comparable: " + difference_text(e) + "\n";
  return out;
}

std::string tail_block(const analyze::Comparison& c) {
  auto knee = [](const std::optional<double>& v) { return v ? load_text_of(*v) : std::string("none in range"); };
  const double peak_rel = c.baseline_peak_rps > 0 ? c.tuned_peak_rps / c.baseline_peak_rps - 1 : NAN;
  std::string out = fmt::format("knee: {} -> {}; peak req/s: {:.2f} -> {:.2f} ({})\n", knee(c.baseline_knee_load),
                                knee(c.tuned_knee_load), c.baseline_peak_rps, c.tuned_peak_rps,
                                change_percent(peak_rel));
  if (!c.unmatched_loads.empty()) {
    std::string loads;
    for (double v : c.unmatched_loads) loads += (loads.empty() ? "" : ", ") + load_text_of(v);
    out += "unmatched stages (in one run only, not compared): " + loads + "\n";
  }
  for (const auto h : c.hints) out += "hint: " + hint_text(h) + "\n";
  return out;
}

}  // namespace

std::string metric_label(const std::string& metric) {
  static const std::vector<std::pair<std::string, std::string>> labels{
      {"request_throughput", "req/s"},          {"output_throughput", "output tok/s"},
      {"total_token_throughput", "total tok/s"}, {"request_goodput", "goodput req/s"},
      {"ttft_p50", "TTFT p50 (ms)"},             {"ttft_p99", "TTFT p99 (ms)"},
      {"tpot_p50", "TPOT p50 (ms)"},             {"tpot_p99", "TPOT p99 (ms)"},
      {"itl_p50", "ITL p50 (ms)"},               {"itl_p99", "ITL p99 (ms)"},
      {"e2el_p50", "E2EL p50 (ms)"},             {"e2el_p99", "E2EL p99 (ms)"}};
  for (const auto& [name, label] : labels)
    if (name == metric) return label;
  return metric;
}

const char* headline_basis_text(analyze::HeadlineBasis b) noexcept {
  switch (b) {
    case analyze::HeadlineBasis::named_load: return "named with --at";
    case analyze::HeadlineBasis::baseline_knee: return "the baseline's knee";
    case analyze::HeadlineBasis::tuned_knee: return "the tuned run's knee; the baseline's is not in both";
    case analyze::HeadlineBasis::most_loaded: return "the most loaded stage of both; no knee in both";
  }
  return "";
}

std::string headline_table(const analyze::Comparison& c) {
  if (!c.headline) return "";
  const auto& h = *c.headline;
  std::string out = fmt::format("headline at {} ({}):\n", stage_load_name(c.load_mode, c.stages[h.stage].load_value),
                                headline_basis_text(h.basis));
  std::size_t width = 14;
  for (const auto& d : h.deltas) width = std::max(width, metric_label(d.metric).size());
  for (const auto& k : h.kernels) width = std::max(width, kernel_label(k).size());
  out += headline_row(width, "", "baseline", "tuned", "change", "significance");
  for (const auto& d : h.deltas)
    out += headline_row(width, metric_label(d.metric), value_cell(d.baseline), value_cell(d.tuned),
                        change_percent(d.rel_change), significance_text(d.significance));
  return out + kernel_rows(width, h.kernels);
}

std::string pivot_table(const analyze::Comparison& c) {
  if (c.stages.empty()) return "";
  std::string out = fmt::format("change by {} (tuned vs baseline; * significant, ? cannot judge):\n",
                                c.load_mode == LoadMode::concurrency ? "concurrency" : "request rate (req/s)");
  std::size_t width = 14;
  for (const auto& d : c.stages.front().deltas) width = std::max(width, metric_label(d.metric).size() + 1);
  out += fmt::format("{:<{}}", "", width);
  for (const auto& sc : c.stages) out += fmt::format("{:>8} ", load_text_of(sc.load_value));
  out += "\n";
  for (std::size_t m = 0; m < c.stages.front().deltas.size(); ++m) {
    out += fmt::format("{:<{}}", metric_label(c.stages.front().deltas[m].metric), width);
    for (const auto& sc : c.stages) {
      const auto& d = sc.deltas[m];
      out += fmt::format("{:>8}{}", change_percent(d.rel_change), significance_mark(d.significance));
    }
    out += "\n";
  }
  return out;
}

std::string console_compare(const results::Run& baseline, const results::Run& tuned, const analyze::Comparison& c,
                            const GateResult& gate) {
  std::string out = fmt::format("baseline: {} ({})\ntuned:    {} ({})\n", baseline.label, baseline.source,
                                tuned.label, tuned.source);
  // Before any number: a reader who sees the table first takes it at face value.
  out += warnings_block(c);
  if (c.headline) out += "\n" + headline_table(c);
  if (!c.stages.empty()) out += "\n" + pivot_table(c);
  out += "\n" + tail_block(c);
  const std::string g = gate_block(c.load_mode, gate);
  if (!g.empty()) out += "\n" + g;
  return out;
}

std::string load_mode_refusal_text(const results::Run& baseline, const results::Run& tuned) {
  return fmt::format("cannot compare {} ({} sweep) with {} ({} sweep): stages of different load modes do not "
                     "match; pass --force to compare them by load value anyway",
                     baseline.source, to_string(baseline.load_mode), tuned.source, to_string(tuned.load_mode));
}

}  // namespace sb::report
