#pragma once
// Knee and regions of a capacity curve (throughput X against load N: concurrency or offered rate).
//
// Method (elasticity on the whole curve; docs/report.md has the reasoning, thresholds and worked
// examples):
//  - elasticity of a segment between two stages: e = dlog X / dlog N = log(X_j/X_i) / log(N_j/N_i).
//    e ~ 1 means throughput scales with load; e ~ 0 means it does not. It is unit-free, so doubling,
//    irregular and fine steps are judged alike, and a concave batching curve (e falling gradually
//    from 1) is not mistaken for saturation the way a slope-through-the-origin rule is;
//  - the plateau is the band within `plateau_tolerance` of the highest throughput of the usable
//    stages (a stage is usable unless more than `max_failure_ratio` of its requests failed);
//  - the knee stage is the lowest finite-load stage k in the band from which no later stage gains
//    more than `saturation_elasticity` (cumulative elasticity from k to every later stage): later
//    load buys ~nothing. Requiring it of all later stages keeps one noisy spike from moving it;
//  - when the segment entering k was fully elastic (e >= `full_elasticity`) capacity ended at k
//    itself; otherwise it ended inside that segment and the knee is a bracket [previous stage, k]
//    with a point estimate: for concurrency, where X ~ N^e extended from the bracket's lower stage
//    (e: the elasticity it arrived with) meets the plateau; with e = 1 that is operational analysis'
//    N* = X_plateau x R by Little's law. For rate sweeps, the plateau throughput itself (achieved X
//    tracks the offered rate until capacity);
//  - regions: linear below the knee, knee at it, saturated after it while throughput stays flat
//    (latency growth against the knee stage = queueing), overload after the peak once throughput
//    falls below the band or when failures exceed `overload_failure_ratio`;
//  - TTFT steep rise: among the stages from which TTFT stays above `ttft_rise_factor` x the lowest
//    TTFT of any stage (its low-load floor), the first one TTFT entered growing faster than the load.
#include <cmath>
#include <cstddef>
#include <iosfwd>
#include <optional>
#include <span>
#include <vector>

namespace sb::analyze {

enum class Region { linear, knee, saturated, overload };
const char* to_string(Region r) noexcept;  // "linear" | "knee" | "saturated" | "overload"

// Why a stage is in its region; report/analysis_text.hpp words it with the StageRegion's numbers.
enum class RegionReason {
  scaling,          // linear: throughput still grows with load (elasticity into the stage)
  dip,              // linear: below the knee but throughput did not grow into it (noise, a transient)
  first_stage,      // linear: lowest stage, no segment into it
  unlimited_rate,   // linear: a rate-inf stage below the knee has no finite load to judge against
  knee,             // the knee stage, capacity ended at it: best operating point
  knee_zone,        // the knee stage, capacity ended inside the step into it (bracket's upper end)
  queueing,         // saturated: throughput flat, latency grown against the knee stage
  flat,             // saturated: throughput flat, latency not grown (or not measured)
  throughput_drop,  // overload: past the peak and below the plateau band
  failures,         // overload: failure ratio above overload_failure_ratio
  mostly_failed,    // overload: more than max_failure_ratio failed; not used for the knee
};
const char* to_string(RegionReason r) noexcept;  // the enumerator's name (JSON reason_code)

struct StageRegion {
  Region region = Region::linear;
  RegionReason reason = RegionReason::scaling;
  double elasticity = NAN;       // dlog X / dlog N from the previous usable stage; NaN where undefined
  double throughput = 0;         // req/s of this stage
  double peak_throughput = 0;    // req/s of the peak (usable) stage
  double failure_ratio = 0;      // failed / (completed + failed)
  double ttft_ms = NAN, e2el_ms = NAN;            // this stage's (the Curve's series)
  double knee_ttft_ms = NAN, knee_e2el_ms = NAN;  // the knee stage's, for the growth past it
};

// Why there is a knee where it is, or none.
enum class KneeReason {
  no_stages,
  no_throughput,        // no usable stage with throughput: nothing to judge
  too_few_usable,       // fewer than 2 usable stages (the rest mostly failed)
  at_stage,             // capacity ended at the knee stage (fully elastic segment into it)
  inside_segment,       // capacity ended between the previous stage and the knee stage (bracket)
  at_or_below_lowest,   // the lowest usable stage is already on the plateau
  none_in_range,        // throughput still grows at the highest stage
};
const char* to_string(KneeReason r) noexcept;  // the enumerator's name
std::ostream& operator<<(std::ostream& out, KneeReason r);

// How CurveAnalysis::knee_estimate was obtained.
enum class KneeEstimate {
  none,
  knee_stage,    // exact: the knee stage's load
  interpolated,  // concurrency: X ~ N^e extended from the bracket's lower stage to the plateau
  plateau_rate,  // rate sweep: the plateau throughput (req/s) is the capacity
};
const char* to_string(KneeEstimate m) noexcept;

struct KneeParams {
  double saturation_elasticity = 0.2;  // later stages gaining less than this elasticity = saturated
  double full_elasticity = 0.9;        // segment into the knee at least this elastic = knee exact
  double plateau_tolerance = 0.10;     // within 10 % of peak throughput = on the plateau
  double max_failure_ratio = 0.5;      // stages with more failed than this are not used
  double overload_failure_ratio = 0.05;  // past the knee, failures above this = overload
  double latency_growth = 1.2;         // past the knee, latency x this over the knee's = queueing
  double ttft_rise_factor = 2.0;       // TTFT above 2x its floor = steep rise
  bool open_loop = false;              // load is an offered rate (req/s): estimate = plateau X
};

struct CurveAnalysis {
  std::optional<std::size_t> knee;       // index of the knee stage (the bracket's upper end)
  std::optional<std::size_t> peak;       // index of the highest throughput (usable stages)
  std::optional<std::size_t> ttft_rise;  // first stage of the steep TTFT rise
  KneeReason knee_reason = KneeReason::no_stages;  // why (or why there is no knee)
  // Where capacity ends, as load values: lo == hi when exact; lo = 0 when at_or_below_lowest.
  std::optional<double> knee_lo, knee_hi, knee_estimate;
  KneeEstimate estimate_method = KneeEstimate::none;
  double plateau_throughput = NAN;    // req/s: the highest usable throughput
  double entering_elasticity = NAN;   // elasticity of the segment into the knee stage
  double later_elasticity = NAN;      // largest cumulative elasticity from the knee to a later stage
  double lower_elasticity = NAN;      // elasticity the lower stage arrived with (interpolated)
  std::size_t unusable_stages = 0;    // stages left out for failures
  KneeParams params;                  // what it was judged with
  std::vector<StageRegion> regions;   // one per stage
};

struct Curve {
  std::span<const double> load;        // ascending; +inf allowed for an unlimited-rate stage
  std::span<const double> throughput;  // requests/s
  std::span<const double> ttft_ms;     // may be empty (p99, else median)
  std::span<const double> e2el_ms = {};        // mean E2EL; may be empty
  std::span<const double> failure_ratio = {};  // failed / (completed + failed); may be empty (= 0)
};

CurveAnalysis analyze_curve(const Curve& c, const KneeParams& p = {});

}  // namespace sb::analyze
