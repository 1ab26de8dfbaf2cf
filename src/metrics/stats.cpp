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
template <class T>
void select_ranks(T* first, T* last, const std::size_t* rb, const std::size_t* re, std::size_t offset) {
  if (rb == re || first == last) return;
  const std::size_t* mid = rb + (re - rb) / 2;
  T* nth = first + (*mid - offset);
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

// numpy's linear percentile of n sorted values, `at(i)` the i-th of them.
template <class At>
double percentile_at(std::size_t n, double p, At at) noexcept {
  if (n == 0) return 0;
  // numpy: virtual index = (n - 1) * (P / 100), in this order of operations.
  const double h = static_cast<double>(n - 1) * (p / 100.0);
  if (h >= static_cast<double>(n - 1)) return at(n - 1);
  if (h <= 0) return at(0);
  const double lo_idx = std::floor(h);
  const double t = h - lo_idx;
  const double a = at(static_cast<std::size_t>(lo_idx));
  const double b = at(static_cast<std::size_t>(lo_idx) + 1);
  // numpy's _lerp: interpolate from the nearer end for accuracy.
  const double diff = b - a;
  return t >= 0.5 ? b - diff * (1 - t) : a + diff * t;
}

// numpy's median of n sorted values: the middle one, or the mean of the middle two.
template <class At>
double median_at(std::size_t n, At at) noexcept {
  if (n == 0) return 0;
  if (n % 2 == 1) return at(n / 2);
  const double two[2] = {at(n / 2 - 1), at(n / 2)};
  return np_mean(two);
}

// numpy's add.reduce of f(x) over xs, kReduceChunk values at a time through one buffer: the same
// sums in the same order as over an array of f(x), without the array.
template <class F>
double reduce_mapped(std::span<const double> xs, F f) {
  std::vector<double> buf(std::min(xs.size(), kReduceChunk));
  double total = 0.0;
  for (std::size_t i = 0; i < xs.size(); i += kReduceChunk) {
    const std::size_t n = std::min(kReduceChunk, xs.size() - i);
    for (std::size_t j = 0; j < n; ++j) buf[j] = f(xs[i + j]);
    total += pairwise_sum_raw(buf.data(), n);
  }
  return total;
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
  // (a stage's pooled ITLs are one value per token: issue 13's memory per request).
  const double total = reduce_mapped(xs, [mean](double x) {
    const double d = x - mean;
    return d * d;
  });
  return std::sqrt(total / static_cast<double>(xs.size()));
}

double np_percentile_sorted(std::span<const double> sorted, double p) noexcept {
  return percentile_at(sorted.size(), p, [sorted](std::size_t i) { return sorted[i]; });
}

double np_median_sorted(std::span<const double> sorted) noexcept {
  return median_at(sorted.size(), [sorted](std::size_t i) { return sorted[i]; });
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

namespace {

// numpy's add.reduce of f(x) over replayed values: the values fill kReduceChunk-sized chunks in
// order, each summed pairwise, as over the whole array.
template <class F>
double reduce_replayed(const NsReplay& replay, F f) {
  std::vector<double> buf;
  buf.reserve(kReduceChunk);
  double total = 0.0;
  replay([&](std::span<const std::uint32_t> run) {
    for (const std::uint32_t x : run) {
      buf.push_back(f(x));
      if (buf.size() == kReduceChunk) {
        total += pairwise_sum_raw(buf.data(), buf.size());
        buf.clear();
      }
    }
  });
  if (!buf.empty()) total += pairwise_sum_raw(buf.data(), buf.size());
  return total;
}

// The values of the given ranks (ascending, each < n) among replayed values: a radix select on the
// high 16 bits, then on the low 16 bits of the buckets the ranks fell in. Two passes; memory is
// 256 KiB per distinct high bucket, not the values.
std::vector<std::uint32_t> values_at_ranks(const NsReplay& replay, std::span<const std::size_t> ranks) {
  constexpr std::size_t kBuckets = 1 << 16;
  std::vector<std::size_t> high(kBuckets, 0);
  replay([&](std::span<const std::uint32_t> run) {
    for (const std::uint32_t x : run) ++high[x >> 16];
  });
  // Each rank's high bucket and its rank inside it.
  std::vector<std::pair<std::uint32_t, std::size_t>> at(ranks.size());
  std::vector<int> slot(kBuckets, -1);
  std::vector<std::uint32_t> buckets;
  std::size_t before = 0, k = 0;
  for (std::uint32_t h = 0; h < kBuckets && k < ranks.size(); ++h) {
    while (k < ranks.size() && ranks[k] < before + high[h]) {
      at[k] = {h, ranks[k] - before};
      ++k;
      if (slot[h] < 0) {
        slot[h] = static_cast<int>(buckets.size());
        buckets.push_back(h);
      }
    }
    before += high[h];
  }
  std::vector<std::vector<std::size_t>> low(buckets.size(), std::vector<std::size_t>(kBuckets, 0));
  replay([&](std::span<const std::uint32_t> run) {
    for (const std::uint32_t x : run)
      if (const int s = slot[x >> 16]; s >= 0) ++low[static_cast<std::size_t>(s)][x & 0xffff];
  });
  std::vector<std::uint32_t> values(ranks.size());
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    const auto [h, rank] = at[i];
    const std::vector<std::size_t>& hist = low[static_cast<std::size_t>(slot[h])];
    std::size_t seen = 0;
    std::uint32_t l = 0;
    while (seen + hist[l] <= rank) seen += hist[l++];
    values[i] = (h << 16) | l;
  }
  return values;
}

}  // namespace

MetricStats metric_stats_ms(std::size_t n, const NsReplay& replay, std::span<const double> percentiles) {
  const auto seconds = [](std::uint32_t x) { return ns_to_s(static_cast<Nanos>(x)); };
  MetricStats s;
  s.count = n;
  if (n == 0) {
    for (double p : percentiles) s.percentiles_ms.emplace_back(p, 0.0);
    return s;
  }
  const double mean = reduce_replayed(replay, seconds) / static_cast<double>(n);
  const double sq = reduce_replayed(replay, [&](std::uint32_t x) {
    const double d = seconds(x) - mean;
    return d * d;
  });
  s.mean_ms = mean * 1000;
  s.std_ms = std::sqrt(sq / static_cast<double>(n)) * 1000;
  // Converting to seconds keeps the order, so the ranks of the nanoseconds are the ranks of the seconds.
  const std::vector<std::size_t> ranks = ranks_read(n, percentiles);
  const std::vector<std::uint32_t> values = values_at_ranks(replay, ranks);
  const auto at = [&](std::size_t i) {
    return seconds(values[static_cast<std::size_t>(std::lower_bound(ranks.begin(), ranks.end(), i) - ranks.begin())]);
  };
  s.median_ms = median_at(n, at) * 1000;
  s.percentiles_ms.reserve(percentiles.size());
  for (double p : percentiles) s.percentiles_ms.emplace_back(p, percentile_at(n, p, at) * 1000);
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
