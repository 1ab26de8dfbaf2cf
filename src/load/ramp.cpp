#include "load/ramp.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>


namespace sb {

Problems validate(const RampUp& ramp) {
  Problems out;
  if (ramp.kind == RampKind::none) return out;
  if (!(ramp.start_rps >= 0) || !std::isfinite(ramp.start_rps)) {
    out.push_back({"start_rps", fmt::format("must be a finite value >= 0, got {}", ramp.start_rps)});
  } else if (ramp.kind == RampKind::exponential && ramp.start_rps <= 0) {
    out.push_back({"start_rps", "must be > 0 for an exponential ramp-up"});
  }
  if (!std::isfinite(ramp.end_rps) || ramp.end_rps < ramp.start_rps) {
    out.push_back({"end_rps", fmt::format("must be finite and >= {{start_rps}} ({}), got {}", ramp.start_rps,
                                          ramp.end_rps)});
  }
  return out;
}

double ramp_rate(const RampUp& ramp, std::size_t i, std::size_t n) noexcept {
  const double progress = static_cast<double>(i) / static_cast<double>(std::max<std::size_t>(n - 1, 1));
  if (ramp.kind == RampKind::exponential) {
    return ramp.start_rps * std::pow(ramp.end_rps / ramp.start_rps, progress);
  }
  return ramp.start_rps + (ramp.end_rps - ramp.start_rps) * progress;
}

}  // namespace sb
