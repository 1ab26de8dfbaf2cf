#include "analyze/knee.hpp"

#include <algorithm>
#include <cmath>

#include <ostream>

namespace sb::analyze {
namespace {

// Throughput per unit of load at the first stage that has both (line through the origin).
std::optional<double> linear_slope(const Curve& c) {
  for (std::size_t i = 0; i < c.load.size(); ++i) {
    if (std::isfinite(c.load[i]) && c.load[i] > 0 && c.throughput[i] > 0) return c.throughput[i] / c.load[i];
  }
  return std::nullopt;
}

bool is_knee(const Curve& c, std::size_t k, double slope, double min_eff) {
  if (!std::isfinite(c.load[k])) return false;
  for (std::size_t j = k + 1; j < c.load.size(); ++j) {
    const double allowed = c.throughput[k] + min_eff * slope * (c.load[j] - c.load[k]);
    if (c.throughput[j] > allowed) return false;
  }
  return true;
}

// True when TTFT grew faster than the load into stage i (elasticity above 1): queueing, not the
// gentle growth that batching more prefills together causes below saturation.
bool steeper_than_load(const Curve& c, std::size_t i, double factor) {
  const double load_ratio = c.load[i] / c.load[i - 1];
  const double ttft_ratio = c.ttft_ms[i] / c.ttft_ms[i - 1];
  // An unlimited-rate stage has no finite load ratio: then the rise factor itself is the bar.
  const double bar = std::isfinite(load_ratio) && load_ratio > 1 ? load_ratio : factor;
  return ttft_ratio > bar;
}

std::optional<std::size_t> find_ttft_rise(const Curve& c, double factor) {
  if (c.ttft_ms.size() != c.load.size() || c.ttft_ms.empty()) return std::nullopt;
  // The floor is the lowest TTFT of any stage, not the first stage's: a cold first request
  // (connection setup, cache warm-up) can inflate the lightest stage's p99.
  const double floor_ms = *std::min_element(c.ttft_ms.begin(), c.ttft_ms.end());
  if (!(floor_ms > 0)) return std::nullopt;
  const double limit = factor * floor_ms;
  std::optional<std::size_t> above;  // first stage from which TTFT stays above the limit
  for (std::size_t i = c.ttft_ms.size(); i-- > 1;) {
    if (!(c.ttft_ms[i] > limit)) break;
    above = i;
  }
  if (!above) return std::nullopt;
  // Closed-loop sweeps cross 2x the floor early (prefill batching grows TTFT gently with load), so the
  // steep rise is the first of those stages that TTFT entered faster than the load grew.
  for (std::size_t i = *above; i < c.ttft_ms.size(); ++i)
    if (steeper_than_load(c, i, factor)) return i;
  return above;
}

double efficiency(const Curve& c, std::size_t i, double slope) {
  if (i == 0) return 1.0;
  const double dx = c.load[i] - c.load[i - 1];
  if (!std::isfinite(dx) || dx <= 0) return NAN;
  return (c.throughput[i] - c.throughput[i - 1]) / (dx * slope);
}

void fill_regions(const Curve& c, CurveAnalysis& a, double slope, const KneeParams& p) {
  const std::size_t n = c.load.size();
  const double peak_y = n ? c.throughput[*a.peak] : 0;
  for (std::size_t i = 0; i < n; ++i) {
    StageRegion r;
    r.throughput = c.throughput[i];
    r.peak_throughput = peak_y;
    // The stage's own marginal gain (none is defined into a rate-inf stage or at the first stage's zero load).
    r.efficiency = efficiency(c, i, slope);
    if (!a.knee || i <= *a.knee) {
      r.region = Region::linear;
      r.reason = std::isnan(r.efficiency) ? RegionReason::before_knee : RegionReason::scaling;
      if (a.knee && i == *a.knee) r.reason = RegionReason::knee;
    } else if (i <= *a.peak || c.throughput[i] >= (1 - p.plateau_tolerance) * peak_y) {
      r.region = Region::plateau;
      r.reason = RegionReason::operating_zone;
    } else {
      r.region = Region::decline;
      r.reason = RegionReason::overload;
    }
    a.regions.push_back(r);
  }
}

}  // namespace

const char* to_string(Region r) noexcept {
  switch (r) {
    case Region::linear: return "linear";
    case Region::plateau: return "plateau";
    case Region::decline: return "decline";
  }
  return "?";
}

const char* to_string(KneeReason r) noexcept {
  switch (r) {
    case KneeReason::no_stages: return "no_stages";
    case KneeReason::no_throughput: return "no_throughput";
    case KneeReason::later_gains_below_slope: return "later_gains_below_slope";
    case KneeReason::later_stages_overloaded: return "later_stages_overloaded";
    case KneeReason::none_in_range: return "none_in_range";
  }
  return "?";
}

std::ostream& operator<<(std::ostream& out, KneeReason r) { return out << to_string(r); }

CurveAnalysis analyze_curve(const Curve& c, const KneeParams& p) {
  CurveAnalysis a;
  a.min_efficiency = p.min_efficiency;
  a.min_share_of_linear = p.min_share_of_linear;
  const std::size_t n = std::min(c.load.size(), c.throughput.size());
  if (n == 0) {
    a.knee_reason = KneeReason::no_stages;
    return a;
  }
  a.peak = static_cast<std::size_t>(std::max_element(c.throughput.begin(), c.throughput.begin() + n) -
                                    c.throughput.begin());
  a.ttft_rise = find_ttft_rise(c, p.ttft_rise_factor);
  const auto slope = linear_slope(c);
  if (!slope) {
    a.knee_reason = KneeReason::no_throughput;
    fill_regions(c, a, 1.0, p);
    return a;
  }
  a.linear_slope = *slope;
  a.knee_reason = KneeReason::none_in_range;
  for (std::size_t k = 0; k + 1 < n; ++k) {
    if (is_knee(c, k, *slope, p.min_efficiency)) {
      a.knee_reason = KneeReason::later_gains_below_slope;
      // An open-loop stage far below its offered load is past the knee (its queue grows without bound).
      const std::size_t marginal = k;
      while (k > 0 && c.throughput[k] < p.min_share_of_linear * *slope * c.load[k]) --k;
      if (k != marginal) a.knee_reason = KneeReason::later_stages_overloaded;
      a.knee = k;
      break;
    }
  }
  fill_regions(c, a, *slope, p);
  return a;
}

}  // namespace sb::analyze
