#pragma once
// Which profiler wrote a file, from its first bytes (sans-I/O), and which files of a directory make one
// trace. Detection looks at content, never at names alone: a user may rename results.csv, and the
// simulator writes whatever --kernel-trace names.
#include <string>
#include <string_view>
#include <vector>

#include "trace/kernel_event.hpp"

namespace sb::trace {

enum class TraceFileFormat {
  rocprof_v1,             // results.csv
  rocprof_v1_json,        // results.json (Chrome trace)
  rocprofv3_kernel,       // *_kernel_trace.csv
  rocprofv3_memory_copy,  // *_memory_copy_trace.csv
  nsys_gpu_trace,         // *_cuda_gpu_trace.csv or its stdout variant
  torch,                  // *.pt.trace.json
  torch_gzip,             // *.pt.trace.json.gz (recognised, not readable without zlib)
  kernel_stats,           // rocprof *stats.csv, nsys *_sum.csv
  unknown,
};

std::string_view trace_file_format_name(TraceFileFormat f);

// `head` = the first few KiB of the file.
TraceFileFormat detect_trace_text(std::string_view head);

struct DetectedTrace {
  std::string format;               // "rocprof_v1" | "rocprofv3" | "nsys" | "torch"
  std::vector<std::string> files;   // sorted; several for rocprofv3 (one set per pid) and torch (per rank)
};

// `path` is a trace file or a folder holding one (searched 3 levels deep, e.g. rocprofv3's
// <dir>/<host>/<pid>_kernel_trace.csv). UserError when nothing, or something ambiguous, is found.
DetectedTrace detect_trace_format(const std::string& path);

// Parses text of a known per-event format (not kernel_stats/unknown/torch_gzip: UserError).
KernelTrace parse_trace_text(TraceFileFormat format, std::string_view text, std::string_view source);

}  // namespace sb::trace
