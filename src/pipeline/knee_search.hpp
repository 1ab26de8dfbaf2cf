#pragma once
// The policy of the adaptive knee search (`--concurrency auto`, `--request-rate auto`), sans I/O:
// given the loads run so far and the throughput each achieved, the next load to run or the reason
// to stop. A coarse doubling staircase until throughput stops growing (two stages in a row within
// the plateau tolerance of the best below them), then bisection of the bracket [highest load not saturated,
// lowest load saturated] until (hi - lo) / lo <= precision (concurrency: or hi - lo <= 1), or the
// stage budget is spent. "Saturated" = throughput within the tolerance of the plateau (the median
// of the stages within twice the tolerance of the best), so a falling curve past the knee
// (overload) or one lucky stage does not move the bracket. The rule is its own; it is the
// one place to swap for the knee analysis' bracket (analyze/knee) later.
#include <span>

#include "load/load_search.hpp"

namespace sb::pipeline {

struct KneeSearchParams {
  LoadMode mode = LoadMode::concurrency;
  double start_load = 1;            // the first stage: c=1, or a rate (e.g. the c=1 throughput)
  double precision = 0.1;           // (hi - lo) / lo at which the knee counts as located
  int max_stages = 12;              // the budget: stages run, all reasons together
  double plateau_tolerance = 0.05;  // throughput within this fraction of the plateau = saturated
  int plateau_stages = 2;           // stages in a row that must not grow before the staircase ends
};

struct SearchPoint {
  double load = 0;            // as run: concurrency or rate, req/s
  double throughput_rps = 0;  // achieved requests/s (completed / duration)
};

struct SearchDecision {
  std::optional<SearchStep> next;        // the stage to run, or nullopt: done
  SearchStop stopped = SearchStop::none; // why done (precision or budget)
  LoadBracket bracket;                   // the knee's bracket as known now
};

// `done` in run order (any order works: it is sorted by load here). Never proposes a load that was run.
SearchDecision next_search_step(const KneeSearchParams& p, std::span<const SearchPoint> done);

// The rate stage to start a rate search with: the c=1 throughput (1 / latency of one request),
// rounded down to two significant digits, at least 0.01 req/s.
double start_rate_from_latency(double latency_s);

}  // namespace sb::pipeline
