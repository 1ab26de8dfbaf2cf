#include "analyze/gate.hpp"

#include <charconv>
#include <cmath>

#include <fmt/format.h>

#include "core/error.hpp"

namespace sb::analyze {
namespace {

[[noreturn]] void bad_rule(std::string_view text, std::string_view why) {
  throw UserError(fmt::format("--fail-if \"{}\": {} (expected METRIC[@LOAD]:+N% or METRIC[@LOAD]:-N%)", text, why));
}

double parse_number(std::string_view s, std::string_view rule, std::string_view what) {
  double v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc{} || ptr != s.data() + s.size()) bad_rule(rule, fmt::format("bad {}", what));
  return v;
}

const MetricDelta* find_delta(const StageComparison& sc, const std::string& metric) {
  for (const auto& d : sc.deltas)
    if (d.metric == metric) return &d;
  return nullptr;
}

}  // namespace

GateRule parse_gate_rule(std::string_view text) {
  GateRule r;
  r.text = std::string(text);
  const auto colon = text.rfind(':');
  if (colon == std::string_view::npos) bad_rule(text, "missing ':'");
  std::string_view lhs = text.substr(0, colon), rhs = text.substr(colon + 1);
  if (const auto at = lhs.find('@'); at != std::string_view::npos) {
    r.at_load = parse_number(lhs.substr(at + 1), text, "stage load after '@'");
    lhs = lhs.substr(0, at);
  }
  if (lhs.empty()) bad_rule(text, "missing metric");
  r.metric = std::string(lhs);
  if (rhs.size() < 3 || (rhs.front() != '+' && rhs.front() != '-') || rhs.back() != '%')
    bad_rule(text, "threshold must be signed and in percent");
  const double pct = parse_number(rhs.substr(1, rhs.size() - 2), text, "percentage");
  r.limit_rel = (rhs.front() == '+' ? pct : -pct) / 100.0;
  return r;
}

std::vector<GateViolation> evaluate_gate(const std::vector<GateRule>& rules, const Comparison& c) {
  std::vector<GateViolation> out;
  for (const auto& rule : rules) {
    bool stage_seen = false;
    for (const auto& sc : c.stages) {
      if (rule.at_load && std::abs(sc.load_value - *rule.at_load) > 1e-9) continue;
      stage_seen = true;
      const MetricDelta* d = find_delta(sc, rule.metric);
      if (!d) bad_rule(rule.text, "metric not compared");
      if (std::isnan(d->rel_change)) bad_rule(rule.text, fmt::format("no value at load {}", sc.load_value));
      const bool violated = rule.limit_rel >= 0 ? d->rel_change > rule.limit_rel : d->rel_change < rule.limit_rel;
      if (violated)
        out.push_back({rule.text, rule.metric, sc.load_value, d->rel_change, rule.limit_rel});
    }
    if (!stage_seen) bad_rule(rule.text, "no matched stage at that load");
  }
  return out;
}

}  // namespace sb::analyze
