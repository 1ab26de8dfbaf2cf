#include "metrics/peaks.hpp"

#include <algorithm>

namespace sb {

void InFlightSteps::sort() { std::sort(words_.begin(), words_.end()); }

int InFlightSteps::max_overlap() const {
  int current = 0, best = 0;
  visit([&](Nanos, int delta) {
    current += delta;
    best = std::max(best, current);
    return false;
  });
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
