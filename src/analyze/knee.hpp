#pragma once
// Knee and regions of a capacity curve (throughput against concurrency or offered rate).
//
// Method (marginal gain against the linear extrapolation, documented in docs/report.md):
//  - the linear slope is the first stage's throughput per unit of load (the line through the origin:
//    zero load gives zero throughput);
//  - the knee is the first stage k from which *no* later stage gains at least `min_efficiency` of
//    that slope: every later y_j <= y_k + min_efficiency * slope * (x_j - x_k). Requiring it of all
//    later stages (not just the next one) makes a single noisy dip or spike unable to move the knee;
//  - the last stage is never the knee (nothing after it is known): then there is "no knee within the
//    tested range";
//  - regions: linear up to the knee; plateau after it while throughput stays within
//    `plateau_tolerance` of the peak; decline after the peak once it falls below that band;
//  - TTFT steep rise: among the stages from which TTFT stays above `ttft_rise_factor` x the lowest
//    TTFT of any stage (its low-load floor), the first one TTFT entered growing faster than the load
//    (TTFT ratio to the previous stage above the load ratio); the first of them when none did.
#include <cmath>
#include <cstddef>
#include <iosfwd>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace sb::analyze {

enum class Region { linear, plateau, decline };
const char* to_string(Region r) noexcept;

// Why a stage is in its region; report/analysis_text.hpp words it.
enum class RegionReason {
  scaling,         // linear: gains `efficiency` of linear
  before_knee,     // linear, no marginal gain defined (first stage, or into a rate-inf stage)
  knee,            // the knee itself: last stage with near-linear gain
  operating_zone,  // plateau: within the tolerance of the peak
  overload,        // decline: below the plateau band
};

struct StageRegion {
  Region region = Region::linear;
  RegionReason reason = RegionReason::scaling;
  double efficiency = NAN;       // marginal gain into this stage / linear slope; NaN where undefined
  double throughput = 0;         // req/s of this stage
  double peak_throughput = 0;    // req/s of the peak stage
};

// Why there is a knee where it is, or none.
enum class KneeReason {
  no_stages,
  no_throughput,            // no stage with throughput: no slope, no knee can be judged
  later_gains_below_slope,  // every later stage gains less than min_efficiency of the slope
  later_stages_overloaded,  // (rate sweeps) moved back: the next stages achieve less than min_share_of_linear
  none_in_range,            // throughput still gains at least min_efficiency at the highest stage
};
const char* to_string(KneeReason r) noexcept;  // the enumerator's name
std::ostream& operator<<(std::ostream& out, KneeReason r);

struct KneeParams {
  double min_efficiency = 0.5;     // marginal gain below this share of linear = past the knee
  double plateau_tolerance = 0.05; // within 5 % of peak throughput = still plateau
  double ttft_rise_factor = 2.0;   // TTFT above 2x its floor = steep rise
  // Rate sweeps (set by analyze_run): a knee stage achieving less than this share of the linear
  // extrapolation is already overloaded, so the knee moves back to the last earlier stage that does.
  // 0 = off (concurrency sweeps: batching makes them sublinear well before the knee).
  double min_share_of_linear = 0.0;
};

struct CurveAnalysis {
  std::optional<std::size_t> knee;       // index into the curve
  std::optional<std::size_t> peak;       // index of the highest throughput
  std::optional<std::size_t> ttft_rise;  // first stage of the steep TTFT rise
  KneeReason knee_reason = KneeReason::no_stages;  // why (or why there is no knee)
  double linear_slope = NAN;             // req/s per unit of load (line through the origin)
  double min_efficiency = 0, min_share_of_linear = 0;  // the KneeParams it was judged with
  std::vector<StageRegion> regions;      // one per stage
};

struct Curve {
  std::span<const double> load;        // ascending; +inf allowed for an unlimited-rate stage
  std::span<const double> throughput;  // requests/s
  std::span<const double> ttft_ms;     // may be empty
};

CurveAnalysis analyze_curve(const Curve& c, const KneeParams& p = {});

}  // namespace sb::analyze
