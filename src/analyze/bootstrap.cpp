#include "analyze/bootstrap.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

namespace sb::analyze {

double percentile_sorted(std::span<const double> sorted, double p) {
  if (sorted.empty()) return NAN;
  const double rank = p / 100.0 * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(rank));
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (rank - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

double Statistic::operator()(std::vector<double>& sample) const {
  if (sample.empty()) return NAN;
  if (mean) return std::accumulate(sample.begin(), sample.end(), 0.0) / static_cast<double>(sample.size());
  // Selection instead of a full sort: the bootstrap calls this thousands of times per metric.
  const double rank = percentile / 100.0 * static_cast<double>(sample.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(rank));
  std::nth_element(sample.begin(), sample.begin() + static_cast<std::ptrdiff_t>(lo), sample.end());
  const double lo_v = sample[lo];
  if (lo + 1 >= sample.size()) return lo_v;
  const double hi_v = *std::min_element(sample.begin() + static_cast<std::ptrdiff_t>(lo) + 1, sample.end());
  return lo_v + (rank - static_cast<double>(lo)) * (hi_v - lo_v);
}

std::optional<Interval> bootstrap_difference(std::span<const double> baseline, std::span<const double> tuned,
                                             const Statistic& stat, const BootstrapParams& p) {
  if (baseline.size() < 2 || tuned.size() < 2 || p.resamples < 10) return std::nullopt;
  std::mt19937_64 rng(p.seed);
  std::vector<double> diffs, a(baseline.size()), b(tuned.size());
  diffs.reserve(static_cast<std::size_t>(p.resamples));
  auto resample = [&rng](std::span<const double> from, std::vector<double>& to) {
    std::uniform_int_distribution<std::size_t> pick(0, from.size() - 1);
    for (double& v : to) v = from[pick(rng)];
  };
  for (int i = 0; i < p.resamples; ++i) {
    resample(baseline, a);
    resample(tuned, b);
    diffs.push_back(stat(b) - stat(a));
  }
  std::sort(diffs.begin(), diffs.end());
  const double tail = (1.0 - p.confidence) / 2.0 * 100.0;
  return Interval{percentile_sorted(diffs, tail), percentile_sorted(diffs, 100.0 - tail)};
}

}  // namespace sb::analyze
