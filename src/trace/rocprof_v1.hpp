#pragma once
// rocprof v1 per-dispatch results.csv (docs/trace.md), both flavours: the SQLite dump written with
// --stats / --*-trace (quoted header, DurationNs last) and the plain one (--timestamp on only:
// unquoted header, bare sig/obj, no DurationNs). Columns are found by name, so PMC columns and the
// older vgpr/fbar layout are fine. A counter-only run has no timestamps and is refused by name.
#include <string_view>

#include "trace/kernel_event.hpp"

namespace sb::trace {

// `source` names the text in errors ("results.csv" or the file path). Timestamps: CLOCK_BOOTTIME ns.
KernelTrace parse_rocprof_v1_csv(std::string_view text, std::string_view source);

// True if `header_line` (the first line of a file) is a rocprof v1 results.csv header.
bool is_rocprof_v1_header(std::string_view header_line);

}  // namespace sb::trace
