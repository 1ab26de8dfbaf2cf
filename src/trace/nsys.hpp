#pragma once
// Nsight Systems `nsys stats -r cuda_gpu_trace -f csv` (docs/trace.md): kernels, memcpy and memset
// rows ordered by start, minimal or full quoting, optional progress lines before the header (stdout
// variant). Time and size units are read from the header ("Start (ns)", "(us)", "Bytes (MB)").
// Timestamps: ns since the nsys session started.
#include <string_view>

#include "trace/kernel_event.hpp"

namespace sb::trace {

KernelTrace parse_nsys_gpu_trace(std::string_view text, std::string_view source);

// True if some line of `head` (the first KiB of a file) is a cuda_gpu_trace header.
bool has_nsys_gpu_trace_header(std::string_view head);

// Multiplier from a header unit to ns: "Start (ns)" -> 1, "(us)" -> 1e3, "(ms)" -> 1e6, "(s)" -> 1e9;
// 0 when the header has no known unit.
double time_unit_to_ns(std::string_view header_cell);

}  // namespace sb::trace
