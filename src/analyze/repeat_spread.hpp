#pragma once
// --repeats: the spread of each stage's results across passes of the staircase (the seeds' "two runs
// differ by > 20 %" check): min, max and coefficient of variation of request throughput and TTFT
// p99, whole-stage (vLLM's figures) and in the steady window.
#include <vector>

#include "metrics/stage_summary.hpp"

namespace sb::analyze {

struct Spread {
  double min = 0, max = 0, cv = 0;  // cv: population std / mean (0 with one value or a zero mean)
  double range = 0;                 // (max - min) / min; 0 when min is 0
};

struct RepeatSpread {
  std::size_t stage_index = 0;      // the stage of the plan (same in every repeat)
  StageLoad load;
  int repeats = 0;                  // passes that ran this stage
  Spread request_throughput, ttft_p99_ms;
  Spread steady_request_throughput, steady_ttft_p99_ms;  // zeros when there was no window
  bool differs = false;             // a range above the limit
};

// One entry per stage index, in stage order; summaries of every repeat, any order. `range_limit`:
// (max - min) / min above it sets `differs`.
std::vector<RepeatSpread> repeat_spread(const std::vector<StageSummary>& stages, double range_limit = 0.20);

}  // namespace sb::analyze
