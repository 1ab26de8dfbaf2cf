#include "metrics/stats.hpp"

#include <algorithm>
#include <cmath>

namespace sb {

namespace {

constexpr std::size_t kPairwiseBlock = 128;  // numpy's PW_BLOCKSIZE
constexpr std::size_t kReduceChunk = 8192;   // numpy's default ufunc buffer size (NPY_BUFSIZE)

double pairwise_sum_raw(const double* a, std::size_t n) noexcept {
  if (n < 8) {
    // numpy starts from -0.0 so that a sum of negative zeros stays negative.
    double res = -0.0;
    for (std::size_t i = 0; i < n; ++i) res += a[i];
    return res;
  }
  if (n <= kPairwiseBlock) {
    double r[8];
    for (std::size_t j = 0; j < 8; ++j) r[j] = a[j];
    std::size_t i = 8;
    for (; i < n - n % 8; i += 8)
      for (std::size_t j = 0; j < 8; ++j) r[j] += a[i + j];
    // The association order is numpy's; changing it changes the last bits.
    double res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; ++i) res += a[i];
    return res;
  }
  std::size_t n2 = n / 2;
  n2 -= n2 % 8;
  return pairwise_sum_raw(a, n2) + pairwise_sum_raw(a + n2, n - n2);
}

// Puts the element of each rank in [rb, re) (ascending, relative to `first`'s rank `offset`) where
// a full sort would, with everything smaller before it and everything larger after it: nth_element
// on the middle rank, then each side for its ranks. O(n log k) for k ranks where std::sort is
// O(n log n): the pooled ITL sample holds one value per token event of the stage.
void select_ranks(double* first, double* last, const std::size_t* rb, const std::size_t* re, std::size_t offset) {
  if (rb == re || first == last) return;
  const std::size_t* mid = rb + (re - rb) / 2;
  double* nth = first + (*mid - offset);
  std::nth_element(first, nth, last);
  select_ranks(first, nth, rb, mid, offset);
  select_ranks(nth + 1, last, mid + 1, re, *mid + 1);
}

// The ranks np_percentile_sorted and np_median_sorted read for these percentiles, ascending.
std::vector<std::size_t> ranks_read(std::size_t n, std::span<const double> percentiles) {
  std::vector<std::size_t> r = {0, n - 1, (n - 1) / 2, n / 2};
  for (const double p : percentiles) {
    const double h = static_cast<double>(n - 1) * (p / 100.0);  // as np_percentile_sorted computes it
    if (h <= 0 || h >= static_cast<double>(n - 1)) continue;
    const auto lo = static_cast<std::size_t>(std::floor(h));
    r.push_back(lo);
    r.push_back(lo + 1);
  }
  std::sort(r.begin(), r.end());
  r.erase(std::unique(r.begin(), r.end()), r.end());
  return r;
}

}  // namespace

double pairwise_sum(std::span<const double> xs) noexcept {
  // add.reduce starts from the identity 0.0 and its iterator hands the inner loop at most
  // kReduceChunk elements at a time; each chunk is summed pairwise and added to the running total.
  double total = 0.0;
  for (std::size_t i = 0; i < xs.size(); i += kReduceChunk)
    total += pairwise_sum_raw(xs.data() + i, std::min(kReduceChunk, xs.size() - i));
  return total;
}

double np_mean(std::span<const double> xs) noexcept {
  if (xs.empty()) return 0;
  return pairwise_sum(xs) / static_cast<double>(xs.size());
}

double np_std(std::span<const double> xs) {
  if (xs.empty()) return 0;
  const double mean = np_mean(xs);
  // numpy squares the deviations into a whole array and add.reduce()s it kReduceChunk at a time;
  // one chunk-sized buffer gives the same sums in the same order without a copy of the sample
  // (a stage's pooled ITLs are 8 bytes per token: issue 13's memory per request).
  std::vector<double> sq(std::min(xs.size(), kReduceChunk));
  double total = 0.0;
  for (std::size_t i = 0; i < xs.size(); i += kReduceChunk) {
    const std::size_t n = std::min(kReduceChunk, xs.size() - i);
    for (std::size_t j = 0; j < n; ++j) {
      const double d = xs[i + j] - mean;
      sq[j] = d * d;
    }
    total += pairwise_sum_raw(sq.data(), n);
  }
  return std::sqrt(total / static_cast<double>(xs.size()));
}

double np_percentile_sorted(std::span<const double> sorted, double p) noexcept {
  if (sorted.empty()) return 0;
  const std::size_t n = sorted.size();
  // numpy: virtual index = (n - 1) * (P / 100), in this order of operations.
  const double h = static_cast<double>(n - 1) * (p / 100.0);
  if (h >= static_cast<double>(n - 1)) return sorted[n - 1];
  if (h <= 0) return sorted[0];
  const double lo_idx = std::floor(h);
  const double t = h - lo_idx;
  const double a = sorted[static_cast<std::size_t>(lo_idx)];
  const double b = sorted[static_cast<std::size_t>(lo_idx) + 1];
  // numpy's _lerp: interpolate from the nearer end for accuracy.
  const double diff = b - a;
  return t >= 0.5 ? b - diff * (1 - t) : a + diff * t;
}

double np_median_sorted(std::span<const double> sorted) noexcept {
  const std::size_t n = sorted.size();
  if (n == 0) return 0;
  if (n % 2 == 1) return sorted[n / 2];
  const double two[2] = {sorted[n / 2 - 1], sorted[n / 2]};
  return np_mean(two);
}

MetricStats metric_stats_ms(std::vector<double>& seconds, std::span<const double> percentiles) {
  MetricStats s;
  s.count = seconds.size();
  s.mean_ms = np_mean(seconds) * 1000;
  s.std_ms = np_std(seconds) * 1000;
  if (!seconds.empty()) {
    // Only the order statistics the median and the percentiles read are put in place.
    const std::vector<std::size_t> ranks = ranks_read(seconds.size(), percentiles);
    select_ranks(seconds.data(), seconds.data() + seconds.size(), ranks.data(), ranks.data() + ranks.size(), 0);
  }
  s.median_ms = np_median_sorted(seconds) * 1000;
  s.percentiles_ms.reserve(percentiles.size());
  for (double p : percentiles) s.percentiles_ms.emplace_back(p, np_percentile_sorted(seconds, p) * 1000);
  return s;
}

LengthStats length_stats(std::vector<double>& values) {
  LengthStats s;
  s.mean = np_mean(values);
  std::sort(values.begin(), values.end());
  s.p50 = np_percentile_sorted(values, 50);
  s.p99 = np_percentile_sorted(values, 99);
  return s;
}

}  // namespace sb
