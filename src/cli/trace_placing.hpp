#pragma once
// Placing a kernel trace on a sweep's stages for a command, or refusing in one line: `kernels
// --results` and `calibrate --kernels` share it, so both accept and refuse the same traces. The
// order of sources is trace/placement.hpp's; an offset estimated from the load timeline is said on
// stderr (the user should know it is an estimate).
#include <string>

#include "trace/placement.hpp"

namespace sb::cli {

// Throws sb::UserError naming `trace_path` and the flags that place it (--trace-offset-ns,
// --trace-start-unix) when no source places the trace, or when the estimate is not confident.
trace::Placement place_trace_or_refuse(const trace::KernelTrace& t, const trace::SweepStages& sweep,
                                       const trace::ClockOverride& clock, const std::string& trace_path,
                                       const std::string& results_path);

}  // namespace sb::cli
