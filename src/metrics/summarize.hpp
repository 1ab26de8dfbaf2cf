#pragma once
// RequestRecords of one stage -> StageSummary, with vLLM's exact formulas (vllm/benchmarks/serve.py, calculate_metrics; docs/results-format.md).
#include <map>
#include <string>
#include <vector>

#include "core/clock.hpp"
#include "metrics/request_record.hpp"
#include "metrics/stage_summary.hpp"

namespace sb {

struct SummarizeParams {
  std::size_t stage_index = 0;
  StageLoad load;
  int num_prompts = 0;
  std::vector<double> percentiles{99};              // --metric-percentiles (50/90/95/99 are added)
  std::map<std::string, double> goodput_slo_ms;     // ttft/tpot/e2el -> ms; empty = no goodput
  Nanos duration_ns = 0;                            // stage t0 -> last completion; 0 = last done_ns
  ClockAnchor anchor;                               // to place the stage on wall-clock time
  Nanos t0_ns = 0;                                  // stage start (steady)
  double saturation_lag_ms = 10.0;                  // schedule-lag p99 above this flags the client
  bool aborted = false;
};

// Pure function of its inputs; records may be in any order (errors take their sample message from
// the first failed record in the given order). Cold path: allocates freely.
StageSummary summarize(const std::vector<RequestRecord>& records, const SummarizeParams& p);

}  // namespace sb
