#pragma once
// rocprof v1 Chrome-trace results.json (docs/trace.md): lane (pid) 1 holds copies, 6 + gpu-id each
// GPU's kernels; API lanes (2, 3), markers (0), HIP ops (5) and "GPU Barriers" (518+) are skipped.
// The exact ns come from args BeginNs/EndNs when present (ts/dur are µs strings, truncated).
// Timestamps: CLOCK_BOOTTIME ns, as in results.csv. Prefer results.csv when both exist.
#include <string_view>

#include "trace/kernel_event.hpp"

namespace sb::trace {

KernelTrace parse_rocprof_v1_json(std::string_view text, std::string_view source);

// rocprof's hand-written JSON starts with `{ "traceEvents":[{}` (an empty first event).
bool is_rocprof_v1_json(std::string_view head);

}  // namespace sb::trace
