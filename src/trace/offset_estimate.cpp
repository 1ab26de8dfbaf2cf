#include "trace/offset_estimate.hpp"

#include <algorithm>
#include <limits>

namespace sb::trace {
namespace {

std::int64_t floor_div_ns(std::int64_t a, std::int64_t b) {
  std::int64_t q = a / b;
  if (a % b != 0 && (a < 0) != (b < 0)) --q;
  return q;
}

std::int64_t ceil_div_ns(std::int64_t a, std::int64_t b) { return -floor_div_ns(-a, b); }

// GPU busy time per bin as a fraction of the bin, summed over devices and streams, kept as prefix
// sums: a stage window's busy time at any offset is then two lookups.
struct BusySeries {
  std::int64_t t0_ns = 0;
  std::int64_t bin_ns = 1;
  std::vector<double> prefix;  // prefix[k] = Σ busy of bins [0, k)

  std::size_t bins() const { return prefix.size() - 1; }
  double total() const { return prefix.back(); }
};

BusySeries busy_series(const std::vector<KernelEvent>& events, const OffsetEstimateParams& p) {
  BusySeries b;
  std::int64_t t0 = std::numeric_limits<std::int64_t>::max(), t1 = std::numeric_limits<std::int64_t>::min();
  for (const auto& e : events) t0 = std::min(t0, e.start_ns), t1 = std::max(t1, e.end_ns);
  const std::int64_t span = t1 - t0 + 1;
  b.t0_ns = t0;
  b.bin_ns = std::max(p.bin_ns, ceil_div_ns(span, static_cast<std::int64_t>(p.max_bins)));
  std::vector<double> busy(static_cast<std::size_t>(span / b.bin_ns + 1), 0.0);
  for (const auto& e : events) {
    const std::int64_t s = e.start_ns - t0, end = e.end_ns - t0;
    for (std::int64_t k = s / b.bin_ns; k * b.bin_ns < end; ++k) {
      const std::int64_t lo = std::max(s, k * b.bin_ns), hi = std::min(end, (k + 1) * b.bin_ns);
      busy[static_cast<std::size_t>(k)] += static_cast<double>(hi - lo);
    }
  }
  b.prefix.assign(busy.size() + 1, 0.0);
  for (std::size_t k = 0; k < busy.size(); ++k)
    b.prefix[k + 1] = b.prefix[k] + busy[k] / static_cast<double>(b.bin_ns);
  return b;
}

// The bins of Unix window [start, end) that the trace covers, when trace ns + offset = Unix ns: the
// trace says nothing about the GPU before its first event or after its last, so only these count.
struct Covered {
  double busy = 0;  // Σ busy fraction over the bins
  double bins = 0;
};

Covered covered(const BusySeries& b, std::int64_t start_unix_ns, std::int64_t end_unix_ns, std::int64_t offset_ns) {
  const auto bin_of = [&](std::int64_t unix_ns) {
    const std::int64_t k = floor_div_ns(unix_ns - offset_ns - b.t0_ns, b.bin_ns);
    return static_cast<std::size_t>(std::clamp<std::int64_t>(k, 0, static_cast<std::int64_t>(b.bins())));
  };
  const std::size_t lo = bin_of(start_unix_ns), hi = bin_of(end_unix_ns);
  return {b.prefix[hi] - b.prefix[lo], static_cast<double>(hi - lo)};
}

struct Fit {
  double score = 0;   // reduction of the squared error against an all-idle model
  double inside = 0;  // Σ S_i
};

// Stage windows in ascending load order (ties in run order): the order the fitted levels must follow.
std::vector<StageWindow> by_load(std::vector<StageWindow> stages) {
  std::stable_sort(stages.begin(), stages.end(),
                   [](const StageWindow& a, const StageWindow& b) { return a.load_value < b.load_value; });
  return stages;
}

// Busy levels fitted per stage under the constraint that more load never means less GPU activity
// (pool-adjacent-violators over the stages in load order): without it, a shift by one whole stage
// fits nearly as well as the truth, the free levels simply moving along with the activity.
Fit fit_at(const BusySeries& b, const std::vector<StageWindow>& stages, std::int64_t offset_ns) {
  struct Block {
    double s = 0, n = 0;
    std::size_t count = 0;
    double level() const { return s / n; }
  };
  std::vector<Block> blocks;
  blocks.reserve(stages.size());
  Fit f;
  for (const auto& w : stages) {
    const Covered c = covered(b, w.start_unix_ns, w.end_unix_ns, offset_ns);
    if (c.bins <= 0) continue;  // outside the trace: no evidence either way
    f.inside += c.busy;
    blocks.push_back({c.busy, c.bins, 1});
    while (blocks.size() > 1 && blocks[blocks.size() - 2].level() > blocks.back().level()) {
      const Block last = blocks.back();
      blocks.pop_back();
      blocks.back().s += last.s, blocks.back().n += last.n, blocks.back().count += last.count;
    }
  }
  // Σ over a block's bins of g² - (g - L)² = 2 L S - n L², which is S² / n at L = S / n.
  for (const auto& k : blocks) f.score += k.s * k.s / k.n;
  return f;
}

// The highest score of another alignment: a peak rising at least `prominence` x the best score above
// the lowest point between it and the best (its col), so the slopes of the best's own hill and the
// noise on them do not count. 0 when there is none; `offset` is set to its offset.
template <class OffsetOf>
double runner_up_peak(const std::vector<double>& score, std::size_t best, double prominence, std::int64_t& offset,
                      OffsetOf offset_of) {
  const double rise = prominence * score[best];
  double found = 0;
  const auto walk = [&](std::ptrdiff_t dir) {
    double col = score[best];
    for (std::ptrdiff_t m = static_cast<std::ptrdiff_t>(best) + dir;
         m >= 0 && m < static_cast<std::ptrdiff_t>(score.size()); m += dir) {
      const double s = score[static_cast<std::size_t>(m)];
      col = std::min(col, s);
      if (s - col >= rise && s > found) found = s, offset = offset_of(static_cast<std::size_t>(m));
    }
  };
  walk(-1);
  walk(+1);
  return found;
}

}  // namespace

OffsetEstimate estimate_offset(const std::vector<KernelEvent>& events, const std::vector<StageWindow>& unordered,
                               const OffsetEstimateParams& p) {
  OffsetEstimate out;
  if (events.empty() || unordered.empty()) return out;
  const std::vector<StageWindow> stages = by_load(unordered);
  const BusySeries b = busy_series(events, p);
  out.bin_ns = b.bin_ns;
  if (!(b.total() > 0)) return out;
  std::int64_t sweep_start = stages.front().start_unix_ns, sweep_end = stages.front().end_unix_ns;
  std::int64_t shortest = std::numeric_limits<std::int64_t>::max();
  for (const auto& w : stages) {
    sweep_start = std::min(sweep_start, w.start_unix_ns), sweep_end = std::max(sweep_end, w.end_unix_ns);
    shortest = std::min(shortest, w.end_unix_ns - w.start_unix_ns);
  }
  // Every offset at which some of the trace overlaps the sweep: from its end at the sweep's start to
  // its start at the sweep's end.
  const std::int64_t trace_end = b.t0_ns + static_cast<std::int64_t>(b.bins()) * b.bin_ns;
  const std::int64_t lo = sweep_start - trace_end, hi = sweep_end - b.t0_ns;
  const std::int64_t step =
      std::max(b.bin_ns, ceil_div_ns(hi - lo, static_cast<std::int64_t>(std::max<std::size_t>(p.max_candidates, 1))));
  const std::int64_t count = (hi - lo) / step + 1;  // <= max_candidates + 1
  std::vector<double> score(static_cast<std::size_t>(count));
  std::size_t best = 0;
  Fit best_fit;
  for (std::size_t m = 0; m < score.size(); ++m) {
    const Fit f = fit_at(b, stages, lo + static_cast<std::int64_t>(m) * step);
    score[m] = f.score;
    if (f.score > best_fit.score) best_fit = f, best = m;
  }
  if (!(best_fit.score > 0)) return out;
  const auto offset_of = [&](std::size_t m) { return lo + static_cast<std::int64_t>(m) * step; };
  out.offset_ns = offset_of(best);
  out.inside_fraction = std::min(1.0, best_fit.inside / b.total());
  out.runner_up_offset_ns = out.offset_ns;
  const double runner_up = runner_up_peak(score, best, p.min_prominence, out.runner_up_offset_ns, offset_of);
  out.margin = 1.0 - runner_up / best_fit.score;
  std::size_t left = best, right = best;
  while (left > 0 && score[left - 1] >= 0.99 * best_fit.score) --left;
  while (right + 1 < score.size() && score[right + 1] >= 0.99 * best_fit.score) ++right;
  out.spread_ns = static_cast<std::int64_t>(right - left) * step;
  const bool flat = static_cast<double>(out.spread_ns) > p.max_spread_of_stage * static_cast<double>(shortest);
  out.verdict = out.inside_fraction < p.min_inside                  ? EstimateVerdict::weak_fit
                : out.margin < p.min_margin || flat                 ? EstimateVerdict::ambiguous
                                                                    : EstimateVerdict::confident;
  return out;
}

}  // namespace sb::trace
