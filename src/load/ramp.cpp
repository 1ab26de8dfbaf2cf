#include "load/ramp.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/error.hpp"

namespace sb {

void validate_ramp(const RampUp& ramp) {
  if (ramp.kind == RampKind::none) return;
  if (!(ramp.start_rps >= 0) || !std::isfinite(ramp.start_rps)) {
    throw UserError(fmt::format("--ramp-up-start-rps: must be a finite value >= 0, got {}", ramp.start_rps));
  }
  if (!std::isfinite(ramp.end_rps) || ramp.end_rps < ramp.start_rps) {
    throw UserError(fmt::format("--ramp-up-end-rps: must be finite and >= --ramp-up-start-rps ({}), got {}",
                                ramp.start_rps, ramp.end_rps));
  }
  if (ramp.kind == RampKind::exponential && ramp.start_rps <= 0) {
    throw UserError("--ramp-up-start-rps: must be > 0 for an exponential ramp-up");
  }
}

double ramp_rate(const RampUp& ramp, std::size_t i, std::size_t n) noexcept {
  const double progress = static_cast<double>(i) / static_cast<double>(std::max<std::size_t>(n - 1, 1));
  if (ramp.kind == RampKind::exponential) {
    return ramp.start_rps * std::pow(ramp.end_rps / ramp.start_rps, progress);
  }
  return ramp.start_rps + (ramp.end_rps - ramp.start_rps) * progress;
}

}  // namespace sb
