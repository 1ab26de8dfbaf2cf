#pragma once
// CI gate for compare: `--fail-if "METRIC[@LOAD]:+10%[:+5ms]"` fails when the tuned run's METRIC rose by
// more than 10 % over the baseline (at every matched stage, or only at stage LOAD); "-5%" fails when
// it fell by more than 5 %. The sign says which direction is a regression for that rule.
// A rule trips only on a change that is also statistically significant (the bootstrap CI of the
// difference lies on the regression side of zero) and, when a floor is given, larger in absolute
// terms than the floor (in the metric's unit: ms, req/s or tok/s): two runs of one configuration
// differ by 10-20 % in a p99 of a few ms, which is noise, not a regression.
#include <cmath>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analyze/compare.hpp"

namespace sb::analyze {

enum class MetricUnit { ms, requests_per_s, tokens_per_s, unknown };

// The unit a metric name is measured in (latencies in ms, request and token throughputs per second).
MetricUnit unit_of(std::string_view metric);

struct GateRule {
  std::string text;                 // as typed, for messages
  std::string metric;
  std::optional<double> at_load;    // only this stage; all matched stages when absent
  double limit_rel = 0;             // +0.10 or -0.05
  std::optional<double> floor_abs{};  // magnitude, in unit_of(metric); no floor when absent
};

// Throws sb::UserError naming --fail-if on bad syntax or a floor whose unit does not fit the metric.
GateRule parse_gate_rule(std::string_view text);

// What a rule says about one matched stage, in the order the checks are made.
enum class GateOutcome {
  within_limit,     // the change is not past the limit
  under_floor,      // past the limit, but the absolute change is within the floor
  not_significant,  // past the limit and the floor, but the CI of the difference includes zero
  tripped,          // past the limit and the floor, and significant
  tripped_not_judged, // past the limit and the floor; significance cannot be judged, so it fails
};

struct GateVerdict {
  std::string rule;       // as typed
  std::string metric;
  double load_value = 0;
  double rel_change = NAN;  // tuned vs baseline
  double limit_rel = 0;     // the rule's limit
  double abs_change = NAN;  // tuned - baseline, in unit_of(metric)
  std::optional<double> floor_abs{};
  GateOutcome outcome = GateOutcome::within_limit;
  Judgement judgement = Judgement::not_in_both;  // how significance was judged
  std::optional<Interval> ci{};                  // CI of the difference, in unit_of(metric)
  double confidence = 0;

  bool failed() const noexcept { return outcome == GateOutcome::tripped || outcome == GateOutcome::tripped_not_judged; }
};

// A failed verdict (the name the report and the JSON use for it).
using GateViolation = GateVerdict;

// Every rule at every matched stage it covers, in rule order then load order. Throws sb::UserError
// when a rule names a metric or stage that the comparison does not have.
std::vector<GateVerdict> judge_gate(const std::vector<GateRule>& rules, const Comparison& c);

// The failed verdicts of judge_gate.
std::vector<GateViolation> evaluate_gate(const std::vector<GateRule>& rules, const Comparison& c);

}  // namespace sb::analyze
