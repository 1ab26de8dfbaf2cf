#include "analyze/gate.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <utility>

#include <fmt/format.h>

#include "core/error.hpp"

namespace sb::analyze {
namespace {

constexpr const char* kRuleSyntax = "expected METRIC[@LOAD]:+N%[:+FLOOR UNIT] or METRIC[@LOAD]:-N%[:-FLOOR UNIT]";

// The unit suffixes a floor may carry, spelled as the metric's unit is printed.
constexpr std::array<std::pair<std::string_view, MetricUnit>, 3> kUnitSuffixes{{
    {"ms", MetricUnit::ms}, {"req/s", MetricUnit::requests_per_s}, {"tok/s", MetricUnit::tokens_per_s}}};

std::string_view unit_suffix(MetricUnit u) {
  for (const auto& [suffix, unit] : kUnitSuffixes)
    if (unit == u) return suffix;
  return "?";
}

[[noreturn]] void bad_rule(std::string_view text, std::string_view why) {
  throw UserError(fmt::format("--fail-if \"{}\": {} ({})", text, why, kRuleSyntax));
}

double parse_number(std::string_view s, std::string_view rule, std::string_view what) {
  double v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc{} || ptr != s.data() + s.size() || !std::isfinite(v))
    bad_rule(rule, fmt::format("bad {}", what));
  return v;
}

// "+5ms", "5ms", "-2req/s": the magnitude, after checking the sign agrees with the limit's and the
// unit with the metric's.
double parse_floor(std::string_view floor, const GateRule& r) {
  const bool signed_floor = !floor.empty() && (floor.front() == '+' || floor.front() == '-');
  if (signed_floor && (floor.front() == '+') != (r.limit_rel >= 0))
    bad_rule(r.text, "the floor's sign must match the limit's");
  if (signed_floor) floor.remove_prefix(1);
  const MetricUnit want = unit_of(r.metric);
  for (const auto& [suffix, unit] : kUnitSuffixes) {
    if (!floor.ends_with(suffix)) continue;
    if (want == MetricUnit::unknown)
      bad_rule(r.text, fmt::format("no known unit for {}, so it cannot have a floor", r.metric));
    if (unit != want)
      bad_rule(r.text, fmt::format("floor in {} but {} is in {}", suffix, r.metric, unit_suffix(want)));
    const double v = parse_number(floor.substr(0, floor.size() - suffix.size()), r.text, "floor");
    if (v < 0) bad_rule(r.text, "bad floor");
    return v;
  }
  bad_rule(r.text, fmt::format("floor needs a unit ({} for {})", unit_suffix(want), r.metric));
}

const MetricDelta* find_delta(const StageComparison& sc, const std::string& metric) {
  for (const auto& d : sc.deltas)
    if (d.metric == metric) return &d;
  return nullptr;
}

// The CI lies wholly on the regression side of zero: a significant change the other way (or one
// that straddles zero) is not a regression, however large the point estimate.
// Closed-loop throughput is judged by the CI of mean E2EL (Little's law), which moves the other way:
// a throughput drop is an E2EL rise.
bool significant_regression(const MetricDelta& d, double limit_rel) {
  if (!d.ci || d.significance != Significance::significant) return false;
  const bool rise_is_regression = (limit_rel >= 0) != (d.judgement == Judgement::bootstrap_littles_law);
  return rise_is_regression ? d.ci->low > 0 : d.ci->high < 0;
}

GateOutcome outcome_of(const GateRule& rule, const MetricDelta& d) {
  const bool past_limit = rule.limit_rel >= 0 ? d.rel_change > rule.limit_rel : d.rel_change < rule.limit_rel;
  if (!past_limit) return GateOutcome::within_limit;
  if (rule.floor_abs && std::abs(d.abs_change) <= *rule.floor_abs) return GateOutcome::under_floor;
  if (d.significance == Significance::cannot_judge) return GateOutcome::tripped_not_judged;
  return significant_regression(d, rule.limit_rel) ? GateOutcome::tripped : GateOutcome::not_significant;
}

}  // namespace

MetricUnit unit_of(std::string_view metric) {
  if (metric == "request_throughput" || metric == "request_goodput") return MetricUnit::requests_per_s;
  if (metric == "output_throughput" || metric == "total_token_throughput") return MetricUnit::tokens_per_s;
  if (!request_field_of(std::string(metric)).empty()) return MetricUnit::ms;
  return MetricUnit::unknown;
}

GateRule parse_gate_rule(std::string_view text) {
  GateRule r;
  r.text = std::string(text);
  const auto colon = text.find(':');
  if (colon == std::string_view::npos) bad_rule(text, "missing ':'");
  std::string_view lhs = text.substr(0, colon), rhs = text.substr(colon + 1), floor;
  if (const auto second = rhs.find(':'); second != std::string_view::npos) {
    floor = rhs.substr(second + 1);
    rhs = rhs.substr(0, second);
    if (floor.empty()) bad_rule(text, "empty floor after the second ':'");
  }
  if (const auto at = lhs.find('@'); at != std::string_view::npos) {
    r.at_load = parse_number(lhs.substr(at + 1), text, "stage load after '@'");
    lhs = lhs.substr(0, at);
  }
  if (lhs.empty()) bad_rule(text, "missing metric");
  r.metric = std::string(lhs);
  if (rhs.size() < 3 || (rhs.front() != '+' && rhs.front() != '-') || rhs.back() != '%')
    bad_rule(text, "threshold must be signed and in percent");
  const double pct = parse_number(rhs.substr(1, rhs.size() - 2), text, "percentage");
  if (pct < 0) bad_rule(text, "bad percentage");
  r.limit_rel = (rhs.front() == '+' ? pct : -pct) / 100.0;
  if (!floor.empty()) r.floor_abs = parse_floor(floor, r);
  return r;
}

std::vector<GateVerdict> judge_gate(const std::vector<GateRule>& rules, const Comparison& c) {
  std::vector<GateVerdict> out;
  for (const auto& rule : rules) {
    bool stage_seen = false;
    for (const auto& sc : c.stages) {
      if (rule.at_load && std::abs(sc.load_value - *rule.at_load) > 1e-9) continue;
      stage_seen = true;
      const MetricDelta* d = find_delta(sc, rule.metric);
      if (!d) bad_rule(rule.text, "metric not compared");
      if (std::isnan(d->rel_change)) bad_rule(rule.text, fmt::format("no value at load {}", sc.load_value));
      GateVerdict v{.rule = rule.text, .metric = rule.metric, .load_value = sc.load_value,
                    .rel_change = d->rel_change, .limit_rel = rule.limit_rel, .abs_change = d->abs_change,
                    .floor_abs = rule.floor_abs, .outcome = outcome_of(rule, *d), .judgement = d->judgement,
                    .ci = d->ci, .confidence = d->confidence};
      out.push_back(std::move(v));
    }
    if (!stage_seen) bad_rule(rule.text, "no matched stage at that load");
  }
  return out;
}

std::vector<GateViolation> evaluate_gate(const std::vector<GateRule>& rules, const Comparison& c) {
  std::vector<GateViolation> out;
  for (auto& v : judge_gate(rules, c))
    if (v.failed()) out.push_back(std::move(v));
  return out;
}

}  // namespace sb::analyze
