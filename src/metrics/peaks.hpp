#pragma once
// Peak metrics of a stage (vllm/benchmarks/serve.py: max_concurrent_requests, max_output_tokens_per_s): the most requests in flight at once and the busiest second.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/clock.hpp"

namespace sb {

// Changes of the in-flight count over time, one 8-byte word each: time x 2, plus 1 for an arrival,
// so that sorting the words puts a departure before an arrival at the same time and a slot handed
// straight on never counts twice. (A stage keeps its records while these exist: 16 bytes a request,
// where (time, delta) pairs took 32 and a list of intervals 16 more: issue 13.)
class InFlightSteps {
 public:
  void reserve(std::size_t intervals) { words_.reserve(2 * intervals); }
  void add(Nanos begin_ns, Nanos end_ns) {
    words_.push_back(begin_ns * 2 + 1);
    words_.push_back(end_ns * 2);
  }
  void sort();  // once, after the last add()

  // Calls f(time_ns, delta) for each step in time order (delta +1 or -1); stops when f returns true.
  template <class F>
  void visit(F f) const {
    for (const std::int64_t w : words_)
      if (f(Nanos{w >> 1}, (w & 1) != 0 ? +1 : -1)) return;
  }
  // The most in flight at once: an exact sweep line over half-open [begin, end) intervals.
  int max_overlap() const;

 private:
  std::vector<std::int64_t> words_;
};

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
