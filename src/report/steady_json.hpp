#pragma once
// The steady-state window in the results (docs/results-format.md "Steady state"): flat keys beside
// vLLM's in every stage object (names vLLM does not use: steady_*, window_*, held_fraction,
// mean_in_flight), and the details (sub-windows, Little's law, findings) in `servebench.steady_state`.
#include <nlohmann/json.hpp>

#include "metrics/stage_summary.hpp"

namespace sb::report {

// Appends the flat keys to a stage object; nothing when the stage has no steady state.
void append_steady_keys(nlohmann::ordered_json& out, const StageSummary& s);

// The `servebench.steady_state` object, or null.
nlohmann::ordered_json steady_state_json(const StageSummary& s);

}  // namespace sb::report
