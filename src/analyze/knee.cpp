#include "analyze/knee.hpp"

#include <algorithm>
#include <cmath>
#include <ostream>

namespace sb::analyze {
namespace {

double series_at(std::span<const double> s, std::size_t i, double fallback) {
  return i < s.size() ? s[i] : fallback;
}

// dlog X / dlog N between stages i < j; NaN when either load is not finite or not positive, or a
// throughput is zero (no log).
double elasticity_between(const Curve& c, std::size_t i, std::size_t j) {
  const double n0 = c.load[i], n1 = c.load[j], x0 = c.throughput[i], x1 = c.throughput[j];
  if (!std::isfinite(n0) || !std::isfinite(n1) || !(n0 > 0) || !(n1 > n0) || !(x0 > 0) || !(x1 > 0)) return NAN;
  return std::log(x1 / x0) / std::log(n1 / n0);
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

// The stages the knee may be judged from: with throughput, and not mostly failed.
std::vector<std::size_t> usable_stages(const Curve& c, std::size_t n, const KneeParams& p) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < n; ++i)
    if (series_at(c.failure_ratio, i, 0) <= p.max_failure_ratio) out.push_back(i);
  return out;
}

// Largest cumulative elasticity from stage k to any later usable finite-load stage (NaN when none).
struct LaterGain {
  double elasticity = NAN;
  bool confirmed = false;  // some later stage shows the plateau (finite-load, or rate inf within band)
  bool exceeds = false;    // some later stage gains more than allowed
};

LaterGain later_gain(const Curve& c, const std::vector<std::size_t>& use, std::size_t pos, const KneeParams& p) {
  LaterGain g;
  const std::size_t k = use[pos];
  for (std::size_t q = pos + 1; q < use.size(); ++q) {
    const std::size_t j = use[q];
    if (!std::isfinite(c.load[j])) {
      // No log of an infinite load: the band test on stage k (within tolerance of the highest
      // throughput, this stage's included) is its check.
      g.confirmed = true;
      continue;
    }
    const double e = elasticity_between(c, k, j);
    if (std::isnan(e)) continue;
    g.confirmed = true;
    if (std::isnan(g.elasticity) || e > g.elasticity) g.elasticity = e;
    if (e >= p.saturation_elasticity) g.exceeds = true;
  }
  return g;
}

// The usable stage before use[pos] with a finite load, as a position in `use`.
std::optional<std::size_t> previous_finite(const Curve& c, const std::vector<std::size_t>& use, std::size_t pos) {
  for (std::size_t q = pos; q-- > 0;)
    if (std::isfinite(c.load[use[q]])) return q;
  return std::nullopt;
}

void estimate_inside(const Curve& c, CurveAnalysis& a, const std::vector<std::size_t>& use, std::size_t lo_pos) {
  const std::size_t lo = use[lo_pos];
  double est = NAN;
  if (a.params.open_loop) {
    // Achieved throughput tracks the offered rate until capacity: the plateau is the capacity.
    est = a.plateau_throughput;
    a.estimate_method = KneeEstimate::plateau_rate;
  } else {
    // Where the rising part, extended from the lower stage with the elasticity it arrived with
    // (X ~ N^e), meets the plateau. With e = 1 (or no earlier stage) this is operational analysis'
    // N* = X_plateau x R(lo) by Little's law (closed loop: N = X R); a concave batching curve
    // arrives with e < 1 and the crossing lies further out.
    const auto before = previous_finite(c, use, lo_pos);
    double e = before ? elasticity_between(c, use[*before], lo) : NAN;
    if (!(e > a.params.saturation_elasticity)) e = 1.0;
    a.lower_elasticity = std::min(e, 1.0);
    est = c.load[lo] * std::pow(a.plateau_throughput / c.throughput[lo], 1.0 / a.lower_elasticity);
    a.estimate_method = KneeEstimate::interpolated;
  }
  a.knee_estimate = std::clamp(est, *a.knee_lo, *a.knee_hi);
}

void find_knee(const Curve& c, CurveAnalysis& a, const std::vector<std::size_t>& use) {
  const KneeParams& p = a.params;
  const double band = (1 - p.plateau_tolerance) * a.plateau_throughput;
  a.knee_reason = KneeReason::none_in_range;
  for (std::size_t pos = 0; pos < use.size(); ++pos) {
    const std::size_t k = use[pos];
    if (!std::isfinite(c.load[k]) || c.throughput[k] < band) continue;
    const LaterGain g = later_gain(c, use, pos, p);
    if (g.exceeds) continue;
    const auto prev = previous_finite(c, use, pos);
    a.entering_elasticity = prev ? elasticity_between(c, use[*prev], k) : NAN;
    // The highest stage with nothing after it is a plateau only if the step into it already gained
    // ~nothing; otherwise throughput may still be rising.
    if (!g.confirmed && !(a.entering_elasticity < p.saturation_elasticity)) break;
    a.knee = k;
    a.later_elasticity = g.elasticity;
    a.knee_hi = c.load[k];
    if (!prev) {
      a.knee_reason = KneeReason::at_or_below_lowest;
      a.knee_lo = 0.0;
      if (p.open_loop) {
        a.knee_estimate = std::min(a.plateau_throughput, c.load[k]);
        a.estimate_method = KneeEstimate::plateau_rate;
      }
    } else if (a.entering_elasticity >= p.full_elasticity) {
      a.knee_reason = KneeReason::at_stage;
      a.knee_lo = a.knee_estimate = c.load[k];
      a.estimate_method = KneeEstimate::knee_stage;
    } else {
      a.knee_reason = KneeReason::inside_segment;
      a.knee_lo = c.load[use[*prev]];
      estimate_inside(c, a, use, *prev);
    }
    return;
  }
  // No knee: the evidence is the elasticity into the highest finite-load stage.
  for (std::size_t pos = use.size(); pos-- > 0;) {
    if (!std::isfinite(c.load[use[pos]])) continue;
    const auto prev = previous_finite(c, use, pos);
    a.entering_elasticity = prev ? elasticity_between(c, use[*prev], use[pos]) : NAN;
    break;
  }
}

void fill_regions(const Curve& c, CurveAnalysis& a, std::size_t n, const std::vector<bool>& usable) {
  const KneeParams& p = a.params;
  const double band = (1 - p.plateau_tolerance) * a.plateau_throughput;
  std::optional<std::size_t> prev;  // previous usable stage
  for (std::size_t i = 0; i < n; ++i) {
    StageRegion r;
    r.throughput = c.throughput[i];
    r.peak_throughput = std::isnan(a.plateau_throughput) ? 0 : a.plateau_throughput;
    r.failure_ratio = series_at(c.failure_ratio, i, 0);
    r.ttft_ms = series_at(c.ttft_ms, i, NAN);
    r.e2el_ms = series_at(c.e2el_ms, i, NAN);
    if (a.knee) {
      r.knee_ttft_ms = series_at(c.ttft_ms, *a.knee, NAN);
      r.knee_e2el_ms = series_at(c.e2el_ms, *a.knee, NAN);
    }
    if (!usable[i]) {
      r.region = Region::overload;
      r.reason = RegionReason::mostly_failed;
      a.regions.push_back(r);
      continue;
    }
    if (prev) r.elasticity = elasticity_between(c, *prev, i);
    const bool finite = std::isfinite(c.load[i]);
    if (a.knee && i == *a.knee) {
      r.region = Region::knee;
      r.reason = a.knee_reason == KneeReason::inside_segment ? RegionReason::knee_zone : RegionReason::knee;
    } else if (!a.knee || i < *a.knee) {
      r.region = Region::linear;
      r.reason = !finite ? RegionReason::unlimited_rate : prev ? RegionReason::scaling : RegionReason::first_stage;
      if (r.reason == RegionReason::scaling && r.elasticity < p.saturation_elasticity) r.reason = RegionReason::dip;
      if (r.failure_ratio > p.overload_failure_ratio) {
        r.region = Region::overload;
        r.reason = RegionReason::failures;
      }
    } else if (r.failure_ratio > p.overload_failure_ratio) {
      r.region = Region::overload;
      r.reason = RegionReason::failures;
    } else if (a.peak && i > *a.peak && r.throughput < band) {
      r.region = Region::overload;
      r.reason = RegionReason::throughput_drop;
    } else {
      r.region = Region::saturated;
      // Queueing shows as latency growth past the knee: E2EL (mean) where measured, else TTFT.
      const double grown = r.e2el_ms > 0 && r.knee_e2el_ms > 0 ? r.e2el_ms / r.knee_e2el_ms
                           : r.ttft_ms > 0 && r.knee_ttft_ms > 0 ? r.ttft_ms / r.knee_ttft_ms
                                                                 : NAN;
      r.reason = grown >= p.latency_growth ? RegionReason::queueing : RegionReason::flat;
    }
    a.regions.push_back(r);
    prev = i;
  }
}

}  // namespace

const char* to_string(Region r) noexcept {
  switch (r) {
    case Region::linear: return "linear";
    case Region::knee: return "knee";
    case Region::saturated: return "saturated";
    case Region::overload: return "overload";
  }
  return "?";
}

const char* to_string(RegionReason r) noexcept {
  switch (r) {
    case RegionReason::scaling: return "scaling";
    case RegionReason::dip: return "dip";
    case RegionReason::first_stage: return "first_stage";
    case RegionReason::unlimited_rate: return "unlimited_rate";
    case RegionReason::knee: return "knee";
    case RegionReason::knee_zone: return "knee_zone";
    case RegionReason::queueing: return "queueing";
    case RegionReason::flat: return "flat";
    case RegionReason::throughput_drop: return "throughput_drop";
    case RegionReason::failures: return "failures";
    case RegionReason::mostly_failed: return "mostly_failed";
  }
  return "?";
}

const char* to_string(KneeReason r) noexcept {
  switch (r) {
    case KneeReason::no_stages: return "no_stages";
    case KneeReason::no_throughput: return "no_throughput";
    case KneeReason::too_few_usable: return "too_few_usable";
    case KneeReason::at_stage: return "at_stage";
    case KneeReason::inside_segment: return "inside_segment";
    case KneeReason::at_or_below_lowest: return "at_or_below_lowest";
    case KneeReason::none_in_range: return "none_in_range";
  }
  return "?";
}

const char* to_string(KneeEstimate m) noexcept {
  switch (m) {
    case KneeEstimate::none: return "none";
    case KneeEstimate::knee_stage: return "knee_stage";
    case KneeEstimate::interpolated: return "interpolated";
    case KneeEstimate::plateau_rate: return "plateau_rate";
  }
  return "?";
}

std::ostream& operator<<(std::ostream& out, KneeReason r) { return out << to_string(r); }

CurveAnalysis analyze_curve(const Curve& c, const KneeParams& p) {
  CurveAnalysis a;
  a.params = p;
  const std::size_t n = std::min(c.load.size(), c.throughput.size());
  if (n == 0) {
    a.knee_reason = KneeReason::no_stages;
    return a;
  }
  a.ttft_rise = find_ttft_rise(c, p.ttft_rise_factor);
  const std::vector<std::size_t> use = usable_stages(c, n, p);
  std::vector<bool> usable(n, false);
  for (std::size_t i : use) usable[i] = true;
  a.unusable_stages = n - use.size();
  for (std::size_t i : use)
    if (!a.peak || c.throughput[i] > c.throughput[*a.peak]) a.peak = i;
  if (a.peak && c.throughput[*a.peak] > 0) a.plateau_throughput = c.throughput[*a.peak];
  if (use.size() < 2 && a.unusable_stages > 0) {
    a.knee_reason = KneeReason::too_few_usable;
  } else if (std::isnan(a.plateau_throughput)) {
    a.knee_reason = KneeReason::no_throughput;
  } else {
    find_knee(c, a, use);
  }
  fill_regions(c, a, n, usable);
  return a;
}

}  // namespace sb::analyze
