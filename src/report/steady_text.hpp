#pragma once
// The words of the steady-state window (metrics/steady_window.hpp) and its checks
// (analyze/steady_checks.hpp): one line per stage beside the vLLM block, then one warning line per
// finding, each naming the stage by its load ("c=128", "rate 32"), never by its index.
#include <string>

#include "analyze/steady_checks.hpp"
#include "metrics/stage_summary.hpp"

namespace sb::report {

// "c=128", "rate 32" (open loop; "rate 32, c<=8" with a limit), "rate inf".
std::string stage_load_name(const StageLoad& load);

// "Steady state: window 0.21-9.98 s (9.77 s), held 99.2 % at c=16, 78.31 req/s, 1201.4 tok/s,
// TTFT p99 12.34 ms\n"; empty when the stage has no steady state.
std::string format_steady_line(const StageSummary& s);

// One "warning: <load>: ..." line per finding, saying what it means and what to do.
std::string format_steady_warnings(const StageSummary& s, const std::vector<analyze::SteadyFinding>& findings);

// Both, with analyze::steady_findings' default limits: what is printed after each stage.
std::string format_steady_summary(const StageSummary& s);

}  // namespace sb::report
