#pragma once
// Judgements on a stage's steady-state window (metrics/steady_window.hpp): is it stable, does
// Little's law hold in it, was the load held, did ramp-up and drain dominate. Numbers and enums;
// report/steady_text.hpp words them.
#include <vector>

#include "metrics/stage_summary.hpp"

namespace sb::analyze {

enum class SteadyIssue {
  no_window,            // the target was never in flight / fewer than two requests
  unstable_throughput,  // sub-window throughputs differ beyond the tolerance
  unstable_ttft,        // sub-window TTFT medians differ beyond the tolerance
  littles_law,          // throughput x mean latency disagrees with the mean in flight
  not_held,             // closed loop: the target concurrency held for too small a share of the window
  rate_not_held,        // open loop: completions in the window fell short of the offered rate
  drain_dominated,      // prompt-bounded stage mostly ramp-up and drain: --stage-seconds would help
};
const char* to_string(SteadyIssue i) noexcept;  // the JSON `kind`

struct SteadyFinding {
  SteadyIssue issue = SteadyIssue::no_window;
  double value = 0;   // the measured number: spread, ratio, fraction
  double limit = 0;   // what it was held against
};

struct SteadyLimits {
  double spread = 0.20;          // (max - min) / mean over sub-windows
  int min_sub_completed = 10;    // fewer completions per sub-window: stability not judged (counting noise)
  double littles_law = 0.10;     // |ratio - 1|
  double held = 0.90;            // held_fraction
  double window_share = 0.80;    // window_s / duration_s of a prompt-bounded stage
  double rate = 0.90;            // achieved / offered rate
};

// The stability tolerance with n completions per sub-window: counting noise alone gives a relative
// spread of about 2 / sqrt(n) over four parts, so the limit is never below 3 / sqrt(n).
double spread_limit(const SteadyLimits& lim, int sub_min_completed);

// Findings of one stage, in a fixed order; empty when the stage has no steady state or none apply.
std::vector<SteadyFinding> steady_findings(const StageSummary& s, const SteadyLimits& lim = {});

}  // namespace sb::analyze
