#pragma once
// A Prometheus histogram with fixed upper bounds: observe() is allocation-free (the engine calls it
// per token), rendering turns the per-bucket counts into cumulative `_bucket{le=…}` lines.
#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

namespace sb::sim {

class PromHistogram {
 public:
  explicit PromHistogram(std::span<const double> upper_bounds)
      : bounds_(upper_bounds), counts_(upper_bounds.size() + 1, 0) {}

  void observe(double value) {
    // First bound >= value: Prometheus buckets are "less than or equal".
    const auto it = std::lower_bound(bounds_.begin(), bounds_.end(), value);
    ++counts_[static_cast<std::size_t>(it - bounds_.begin())];
    sum_ += value;
    ++count_;
  }

  std::span<const double> bounds() const { return bounds_; }
  // Non-cumulative count of bucket i; index bounds().size() is the +Inf overflow bucket.
  std::uint64_t bucket_count(std::size_t i) const { return counts_[i]; }
  std::uint64_t count() const { return count_; }
  double sum() const { return sum_; }

 private:
  std::span<const double> bounds_;
  std::vector<std::uint64_t> counts_;
  double sum_ = 0;
  std::uint64_t count_ = 0;
};

}  // namespace sb::sim
