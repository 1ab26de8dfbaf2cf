#include "metrics/peaks.hpp"

#include <algorithm>
#include <utility>

namespace sb {

int max_overlap(std::span<const Interval> intervals) {
  // (time, delta): sorting pairs puts -1 (departure) before +1 (arrival) at equal times.
  std::vector<std::pair<Nanos, int>> events;
  events.reserve(intervals.size() * 2);
  for (const Interval& iv : intervals) {
    events.emplace_back(iv.begin_ns, +1);
    events.emplace_back(iv.end_ns, -1);
  }
  std::sort(events.begin(), events.end());
  int current = 0, best = 0;
  for (const auto& [t, delta] : events) {
    current += delta;
    best = std::max(best, current);
  }
  return best;
}

namespace {
constexpr Nanos kSecondNs = 1'000'000'000;
}

SecondBins::SecondBins(Nanos t_min_ns, Nanos t_max_ns)
    : t_min_ns_(t_min_ns),
      counts_(static_cast<std::size_t>(std::max<Nanos>(t_max_ns - t_min_ns, 0) / kSecondNs) + 1, 0) {}

void SecondBins::add(Nanos t_ns) noexcept {
  // vLLM bins with int(t - t_min): truncation, the same as floor for t >= t_min.
  const Nanos offset = std::max<Nanos>(t_ns - t_min_ns_, 0);
  const std::size_t bin = std::min(static_cast<std::size_t>(offset / kSecondNs), counts_.size() - 1);
  max_count_ = std::max(max_count_, ++counts_[bin]);
}

}  // namespace sb
