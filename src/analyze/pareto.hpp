#pragma once
// The Pareto view across tuned configurations and their stages, the way vLLM's sweep plots and
// AIPerf's Pareto sweeps show it: per (configuration, stage), the speed one user sees against what the
// hardware delivers, with the points some other point beats on both marked dominated (docs/tune.md "What tune writes across configurations").
//
// x = output tokens/s per user = 1000 / mean TPOT (ms): the decode rate of one stream, defined for both
// closed-loop and open-loop stages (output tokens/s / concurrency needs the concurrency to have been
// reached, which an open-loop stage does not set). y = output tokens/s per GPU = output_throughput / GPUs.
#include <cstddef>
#include <optional>
#include <vector>

#include "results/model.hpp"

namespace sb::analyze {

struct ParetoPoint {
  std::size_t config = 0;  // index into the runs given
  std::size_t stage = 0;   // index into that run's stages
  double tok_s_per_user = 0;
  double tok_s_per_gpu = 0;
  bool dominated = false;
  std::optional<std::size_t> dominated_by;  // index into the points: the first one that dominates it
};

// Every stage with completed requests and a mean TPOT; a null run (a configuration that failed) adds
// none. `gpus[i]` is configuration i's GPU count (>= 1).
std::vector<ParetoPoint> pareto_points(const std::vector<const results::Run*>& runs, const std::vector<int>& gpus);

// A point is dominated when another is at least as good on both axes and better on one; equal points
// do not dominate each other.
void mark_dominated(std::vector<ParetoPoint>& points);

}  // namespace sb::analyze
