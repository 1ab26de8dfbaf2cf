#pragma once
// Peak metrics of a stage (vllm/benchmarks/serve.py: max_concurrent_requests, max_output_tokens_per_s): the most requests in flight at once and the busiest second.
#include <span>
#include <vector>

#include "core/clock.hpp"

namespace sb {

struct Interval {
  Nanos begin_ns = 0, end_ns = 0;  // half-open [begin, end)
};

// Exact sweep-line maximum of overlapping half-open intervals. At equal times departures are
// processed before arrivals, so back-to-back requests on one slot never count twice (vLLM [N]).
// `intervals` is not modified.
int max_overlap(std::span<const Interval> intervals);

// Events counted in 1-second bins from `t_min_ns` (vLLM's max_output_tokens_per_s: one entry per
// token event, bins from the earliest successful send). Times outside [t_min, t_max] are clamped.
class SecondBins {
 public:
  SecondBins(Nanos t_min_ns, Nanos t_max_ns);
  void add(Nanos t_ns) noexcept;
  int max_count() const noexcept { return max_count_; }

 private:
  Nanos t_min_ns_;
  std::vector<int> counts_;
  int max_count_ = 0;
};

}  // namespace sb
