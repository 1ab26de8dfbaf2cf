#include "report/analysis_text.hpp"

#include <cmath>

#include <fmt/format.h>

namespace sb::report {
namespace {

using analyze::KneeReason;
using analyze::RegionReason;

// A gain as a whole percentage; + 0.0 turns -0 into 0 (a flat stage says "0%", never "-0%").
std::string gain_text(double efficiency) {
  return fmt::format("gains {:.0f}% of linear", std::round(100 * efficiency) + 0.0);
}

}  // namespace

std::string knee_reason_text(const analyze::CurveAnalysis& c) {
  switch (c.knee_reason) {
    case KneeReason::no_stages:
      return "no stages";
    case KneeReason::no_throughput:
      return "no stage with throughput: no knee can be judged";
    case KneeReason::later_gains_below_slope:
      return fmt::format("every later stage gains less than {:.0f}% of the linear slope ({:.3g} req/s per unit of load)",
                         100 * c.min_efficiency, c.linear_slope);
    case KneeReason::later_stages_overloaded:
      return fmt::format("the next stages achieve less than {:.0f}% of the linear extrapolation (overloaded), later "
                         "ones gain less than {:.0f}% of its slope ({:.3g} req/s per unit of load)",
                         100 * c.min_share_of_linear, 100 * c.min_efficiency, c.linear_slope);
    case KneeReason::none_in_range:
      return fmt::format("no knee within the tested range: throughput still gains at least {:.0f}% of linear at the "
                         "highest stage",
                         100 * c.min_efficiency);
  }
  return "";
}

std::string region_reason_text(const analyze::StageRegion& r) {
  switch (r.reason) {
    case RegionReason::scaling:
      return gain_text(r.efficiency) + ": room to scale";
    case RegionReason::before_knee:
      return "before the knee: room to scale";
    case RegionReason::knee:
      return "knee: last stage with near-linear gain";
    case RegionReason::operating_zone:
      return fmt::format("throughput {:.0f}% of peak, {}: best operating zone",
                         r.peak_throughput > 0 ? 100 * r.throughput / r.peak_throughput : 0.0,
                         std::isnan(r.efficiency) ? std::string("past the knee") : gain_text(r.efficiency));
    case RegionReason::overload:
      return fmt::format("throughput {:.0f}% below peak: overload, avoid", 100 * (1 - r.throughput / r.peak_throughput));
  }
  return "";
}

}  // namespace sb::report
