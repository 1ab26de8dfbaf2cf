#pragma once
// numpy-compatible statistics (vLLM's benchmarks use np.mean/np.median/np.std/np.percentile; docs/results-format.md), so our numbers match vLLM's to the last bit where the
// inputs match: pairwise summation as numpy's add.reduce, population std, linear percentiles.
// Empty input gives 0 for everything (vLLM passes `xs or 0`, i.e. the scalar 0).
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "core/clock.hpp"
#include "metrics/stage_summary.hpp"

namespace sb {

// numpy's pairwise sum: chunks of 8192 (the ufunc buffer), each summed by halving down to blocks
// of <= 128 that use 8 accumulators.
double pairwise_sum(std::span<const double> xs) noexcept;

double np_mean(std::span<const double> xs) noexcept;
// Population standard deviation (ddof = 0), computed as numpy does: sqrt(mean((x - mean)^2)).
double np_std(std::span<const double> xs);
// Percentile P in [0, 100] of values already sorted ascending, numpy's default "linear" method.
double np_percentile_sorted(std::span<const double> sorted, double p) noexcept;
// Median of values already sorted ascending (numpy: mean of the middle one or two).
double np_median_sorted(std::span<const double> sorted) noexcept;

// Statistics of samples given in seconds, reported in ms as vLLM does (statistic first, then
// x 1000). `percentiles` must be ascending. Reorders `seconds`: the values the median and the
// percentiles read are where a sort puts them, the rest is not sorted.
MetricStats metric_stats_ms(std::vector<double>& seconds, std::span<const double> percentiles);

// Samples in whole nanoseconds that are not kept in a list but can be produced again, in the same
// order, as often as asked: replay(sink) calls sink with consecutive runs of them.
using NsReplay = std::function<void(const std::function<void(std::span<const std::uint32_t>)>& sink)>;

// The statistics of the overload above over the n replayed samples converted with ns_to_s, equal to
// the last bit, without a list (a stage's pooled ITLs, one per token: issue 13's memory per
// request): the mean and std by numpy's chunked pairwise sums, the order statistics by a radix
// select. Replays the samples four times.
MetricStats metric_stats_ms(std::size_t n, const NsReplay& replay, std::span<const double> percentiles);

// Mean, p50 and p99 of token lengths. Sorts `values` in place.
LengthStats length_stats(std::vector<double>& values);

}  // namespace sb
