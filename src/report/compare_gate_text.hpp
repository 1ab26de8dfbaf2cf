#pragma once
// The words of the --fail-if gate: per rule and stage, whether it tripped, stayed within its limit,
// went past it without being significant, or stayed under its absolute floor.
#include <string>

#include "analyze/gate.hpp"
#include "report/analysis_json.hpp"

namespace sb::report {

// A stage named by its load, as users typed it: "c=8", "rate 32", "rate inf".
std::string stage_load_name(LoadMode mode, double load_value);

// Key of an outcome in the JSON: "tripped", "within_limit", "over_limit_not_significant",
// "under_floor", "tripped_not_judged".
const char* gate_outcome_key(analyze::GateOutcome o) noexcept;

// One verdict without its rule, e.g. "+16.6% (+1.45 ms): over the limit but not significant (95%
// bootstrap CI of the ttft_p99 difference: [-0.8, 3.1] ms)".
std::string gate_verdict_text(const analyze::GateVerdict& v);

// The gate block of compare: each rule, then one line per stage it covers, then the overall result.
std::string gate_block(LoadMode mode, const GateResult& gate);

}  // namespace sb::report
