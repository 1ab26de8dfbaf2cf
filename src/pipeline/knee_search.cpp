#include "pipeline/knee_search.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace sb::pipeline {
namespace {

// x rounded to `digits` significant digits (down, or to nearest), so searched rates read as the
// user would type them ("rate 324 req/s", not 323.71875).
double knee_round_sig(double x, int digits, bool down) {
  if (!(x > 0) || std::isinf(x)) return x;
  const double scale = std::pow(10.0, std::floor(std::log10(x)) - digits + 1);
  // The epsilon keeps 27.0 from flooring to 26 through a representation error.
  return (down ? std::floor(x / scale + 1e-9) : std::round(x / scale)) * scale;
}

std::vector<SearchPoint> knee_sorted_points(std::span<const SearchPoint> done) {
  std::vector<SearchPoint> pts(done.begin(), done.end());
  std::stable_sort(pts.begin(), pts.end(), [](const SearchPoint& a, const SearchPoint& b) { return a.load < b.load; });
  return pts;
}

// Throughput stopped growing: `confirm` stages in a row each achieved less than (1 + tolerance) x
// the best below them. One is not enough: a single stage measured low (a busy client machine, a
// server hiccup) would end the staircase early and put the bracket far below the knee.
bool knee_plateau_seen(const std::vector<SearchPoint>& pts, double tolerance, int confirm) {
  double best = -std::numeric_limits<double>::infinity();
  int flat = 0;
  for (std::size_t i = 0; i < pts.size(); ++i) {
    flat = i > 0 && pts[i].throughput_rps < (1 + tolerance) * best ? flat + 1 : 0;
    if (flat >= confirm) return true;
    best = std::max(best, pts[i].throughput_rps);
  }
  return false;
}

// The plateau's throughput: the median of the stages within twice the tolerance of the best. Not
// the best itself: short stages far past the knee finish their burst in fewer drain tails and so
// read a few per cent above the server's capacity (rate 896 against a 343 req/s server: 330 req/s,
// while 392 and 448 read 315 and 318), and one noisy stage would move the bracket.
double knee_plateau_level(const std::vector<SearchPoint>& pts, double tolerance) {
  double best = 0;
  for (const SearchPoint& s : pts) best = std::max(best, s.throughput_rps);
  std::vector<double> band;
  for (const SearchPoint& s : pts)
    if (s.throughput_rps >= (1 - 2 * tolerance) * best) band.push_back(s.throughput_rps);
  std::sort(band.begin(), band.end());
  const std::size_t n = band.size();  // >= 1: the best is in it
  return n % 2 == 1 ? band[n / 2] : (band[n / 2 - 1] + band[n / 2]) / 2;
}

// hi: the lowest load within the tolerance of the plateau; lo: the load just below it.
LoadBracket knee_plateau_bracket(const std::vector<SearchPoint>& pts, double tolerance) {
  const double plateau = knee_plateau_level(pts, tolerance);
  LoadBracket b;
  for (std::size_t i = 0; i < pts.size(); ++i) {
    if (pts[i].throughput_rps < (1 - tolerance) * plateau) continue;
    b.hi = pts[i].load;
    if (i > 0) b.lo = pts[i - 1].load;
    break;
  }
  return b;
}

bool knee_located(const KneeSearchParams& p, double lo, double hi) {
  if (p.mode == LoadMode::concurrency && hi - lo <= 1) return true;
  return (hi - lo) / lo <= p.precision * (1 + 1e-9);  // 11 -> 12 at 10 % is 0.0909: located
}

double knee_midpoint(const KneeSearchParams& p, double lo, double hi) {
  return p.mode == LoadMode::concurrency ? std::floor((lo + hi) / 2) : knee_round_sig((lo + hi) / 2, 3, false);
}

SearchDecision knee_done(SearchStop why, LoadBracket b) { return {std::nullopt, why, b}; }

SearchDecision knee_step(double load, SearchReason why, LoadBracket b) { return {SearchStep{load, why, b}, SearchStop::none, b}; }

}  // namespace

SearchDecision next_search_step(const KneeSearchParams& p, std::span<const SearchPoint> done) {
  if (done.empty()) return knee_step(p.start_load, SearchReason::start, {});
  const std::vector<SearchPoint> pts = knee_sorted_points(done);
  const bool budget_spent = static_cast<int>(done.size()) >= p.max_stages;
  if (!knee_plateau_seen(pts, p.plateau_tolerance, p.plateau_stages)) {
    const LoadBracket b{pts.back().load, std::nullopt};
    if (budget_spent) return knee_done(SearchStop::budget, b);
    return knee_step(pts.back().load * 2, SearchReason::doubling, b);
  }
  const LoadBracket b = knee_plateau_bracket(pts, p.plateau_tolerance);
  const double hi = *b.hi;
  if (!b.lo) {
    // The lowest load run already saturates: go below it, unless it is a single request in flight.
    const double half = p.mode == LoadMode::concurrency ? std::floor(hi / 2) : knee_round_sig(hi / 2, 3, false);
    if (half <= 0 || half >= hi) return knee_done(SearchStop::precision, b);
    if (budget_spent) return knee_done(SearchStop::budget, b);
    return knee_step(half, SearchReason::halving, b);
  }
  if (knee_located(p, *b.lo, hi)) return knee_done(SearchStop::precision, b);
  const double mid = knee_midpoint(p, *b.lo, hi);
  // Rounding can leave nothing strictly between the two: as precise as the load can be set.
  if (mid <= *b.lo || mid >= hi) return knee_done(SearchStop::precision, b);
  if (budget_spent) return knee_done(SearchStop::budget, b);
  return knee_step(mid, SearchReason::bisect, b);
}

double start_rate_from_latency(double latency_s) {
  if (!(latency_s > 0) || std::isinf(latency_s)) return 1.0;
  return std::max(0.01, knee_round_sig(1.0 / latency_s, 2, true));
}

}  // namespace sb::pipeline
