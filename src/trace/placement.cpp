#include "trace/placement.hpp"

namespace sb::trace {

Placement place_trace(const KernelTrace& trace, const SweepStages& sweep, const ClockOverride& clock,
                      const OffsetEstimateParams& params) {
  Placement p;
  p.offset = resolve_offset(trace, clock, sweep.clocks_at_start);
  if (p.offset) return p;
  p.estimate = estimate_offset(trace.events, sweep.stages, params);
  if (p.estimate->confident()) p.offset = UnixOffset{p.estimate->offset_ns, OffsetSource::estimated};
  return p;
}

}  // namespace sb::trace
