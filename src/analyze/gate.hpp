#pragma once
// CI gate for compare: `--fail-if "METRIC[@LOAD]:+10%"` fails when the tuned run's METRIC rose by more
// than 10 % over the baseline (at every matched stage, or only at stage LOAD); "-5%" fails when it
// fell by more than 5 %. The sign says which direction is a regression for that rule.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analyze/compare.hpp"

namespace sb::analyze {

struct GateRule {
  std::string text;                 // as typed, for messages
  std::string metric;
  std::optional<double> at_load;    // only this stage; all matched stages when absent
  double limit_rel = 0;             // +0.10 or -0.05
};

// Throws sb::UserError naming --fail-if on bad syntax.
GateRule parse_gate_rule(std::string_view text);

struct GateViolation {
  std::string rule;       // as typed
  std::string metric;
  double load_value = 0;
  double rel_change = 0;  // tuned vs baseline
  double limit_rel = 0;   // the rule's limit
};

// Throws sb::UserError when a rule names a metric or stage that the comparison does not have.
std::vector<GateViolation> evaluate_gate(const std::vector<GateRule>& rules, const Comparison& c);

}  // namespace sb::analyze
