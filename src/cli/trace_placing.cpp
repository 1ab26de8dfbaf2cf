#include "cli/trace_placing.hpp"

#include <fmt/format.h>

#include <cstdio>

#include "core/error.hpp"
#include "report/offset_estimate_text.hpp"

namespace sb::cli {
namespace {

// Why no offset is known, and how to give one.
std::string no_offset_message(const trace::KernelTrace& t, const std::string& path) {
  return fmt::format(
      "{}: cannot align a {} trace (clock {}) with the run's stages: its Unix offset is unknown; "
      "pass --trace-offset-ns N (Unix ns = trace ns + N) or --trace-start-unix S (first event's wall-clock time)",
      path, t.source_format, t.clock_domain);
}

}  // namespace

trace::Placement place_trace_or_refuse(const trace::KernelTrace& t, const trace::SweepStages& sweep,
                                       const trace::ClockOverride& clock, const std::string& trace_path,
                                       const std::string& results_path) {
  trace::Placement placed = trace::place_trace(t, sweep, clock);
  if (!placed.offset && placed.estimate && placed.estimate->verdict != trace::EstimateVerdict::no_overlap)
    throw UserError(report::offset_refusal_text(*placed.estimate, t, trace_path));
  if (!placed.offset) throw UserError(no_offset_message(t, trace_path));
  if (placed.offset->source == trace::OffsetSource::estimated)
    std::fputs(report::offset_estimate_text(*placed.estimate, t, results_path).c_str(), stderr);
  return placed;
}

}  // namespace sb::cli
