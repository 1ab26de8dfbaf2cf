#pragma once
// Where a trace's events lie on the sweep's wall clock, by the first source that knows: the user's
// flag, the trace's own offset (sidecar, torch), the run's host clocks (same host), else an estimate
// from the load timeline (trace/offset_estimate.hpp). `kernels --results` and `tune` share it.
#include <optional>

#include "trace/align.hpp"
#include "trace/offset_estimate.hpp"

namespace sb::trace {

struct Placement {
  std::optional<UnixOffset> offset;        // absent: cannot align (the estimate, if any, was not confident)
  std::optional<OffsetEstimate> estimate;  // present when the estimate was tried
};

Placement place_trace(const KernelTrace& trace, const SweepStages& sweep, const ClockOverride& clock,
                      const OffsetEstimateParams& params = {});

}  // namespace sb::trace
