#pragma once
// File-reading wrappers around the sans-I/O parsers. Errors name the file.
#include <string>
#include <string_view>

#include "trace/kernel_event.hpp"
#include "trace/kernel_stats.hpp"

namespace sb::trace {

// Reads a whole file; UserError "PATH: cannot read" otherwise.
std::string read_trace_file(const std::string& path);

// One file of any per-event format, detected from its content; applies a FILE.servebench.json sidecar.
KernelTrace load_trace_file(const std::string& path);

// A file or a folder (detect_trace_format); several files are merged and sorted by start time.
KernelTrace load_trace(const std::string& path);

KernelStats load_kernel_stats_file(const std::string& path);

// Applies a servebench sim sidecar ({"simulated": true, "unix_minus_trace_ns": N, …}) to `trace`.
// Malformed sidecars are a UserError naming `source`.
void apply_sim_sidecar(std::string_view json_text, std::string_view source, KernelTrace& trace);

}  // namespace sb::trace
