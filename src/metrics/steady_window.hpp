#pragma once
// A stage's steady-state measurement window (docs/results-format.md "Steady state"), sans I/O: from
// the records' send / token / done times alone. Ramp-up (slots filling, or the schedule not yet
// started) and drain (issuing stopped, in-flight requests finishing) bias whole-stage throughput and
// mean in-flight low; inside the window the offered load was actually applied.
#include <optional>
#include <vector>

#include "core/clock.hpp"
#include "metrics/request_record.hpp"
#include "metrics/stage_summary.hpp"

namespace sb {

struct SteadyParams {
  StageLoad load;                      // closed loop when the rate is inf
  Nanos issue_end_ns = -1;             // when issuing stopped (the --stage-seconds deadline); -1 = last send
  bool duration_bounded = false;       // copied into the result
  int sub_windows = 4;                 // consecutive sub-windows of the stability check (>= 2)
  std::vector<double> percentiles{50, 90, 95, 99};  // ascending
};

// Window, throughputs and latencies inside it, Little's-law ratio, sub-window spreads. A stage
// with fewer than two sent requests, or whose target was never in flight, gets window_s = 0.
// `whole_stage_throughput` (req/s, vLLM's) gives the open-loop rate_fraction.
SteadyState steady_window(const std::vector<RequestRecord>& records, const SteadyParams& p,
                          double whole_stage_throughput);

}  // namespace sb
