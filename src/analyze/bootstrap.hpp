#pragma once
// Statistics for compare: numpy-style percentiles and a seeded percentile-bootstrap confidence
// interval of the difference of one statistic between two samples.
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <vector>

namespace sb::analyze {

// numpy.percentile with the default linear interpolation; `sorted` ascending, p in [0, 100].
double percentile_sorted(std::span<const double> sorted, double p);

// Which statistic of a sample to compare: a percentile (0..100) or the mean (p < 0).
struct Statistic {
  double percentile = 50;
  bool mean = false;
  double operator()(std::vector<double>& sample) const;  // may reorder `sample`
};

struct Interval {
  double low = 0, high = 0;
  bool excludes_zero() const noexcept { return low > 0 || high < 0; }
};

struct BootstrapParams {
  int resamples = 1000;
  double confidence = 0.95;
  std::uint64_t seed = 42;   // fixed: the same inputs give the same interval
};

// CI of stat(tuned) - stat(baseline), resampling each sample with replacement. nullopt when either
// sample has fewer than 2 values.
std::optional<Interval> bootstrap_difference(std::span<const double> baseline, std::span<const double> tuned,
                                             const Statistic& stat, const BootstrapParams& p = {});

}  // namespace sb::analyze
