#pragma once
// PyTorch profiler / Kineto Chrome-trace JSON (*.pt.trace.json, docs/trace.md): GPU work is
// every "ph":"X" event with cat kernel, gpu_memcpy or gpu_memset. ts/dur are µs (3 decimals) relative
// to baseTimeNanoseconds; events come out in Unix ns (clock_domain "unix", unix_offset_ns 0). Old
// traces without baseTimeNanoseconds carry absolute Unix µs and are detected by magnitude; anything
// else gets clock_domain "unknown". Gzip text is refused here: load_trace_file() decompresses it
// first when the build has zlib (gunzip.hpp).
#include <string_view>

#include "trace/kernel_event.hpp"

namespace sb::trace {

inline constexpr std::string_view kClockUnknown = "unknown";

KernelTrace parse_torch_trace(std::string_view text, std::string_view source);

// True if `head` starts like a Kineto/Chrome trace (a JSON object mentioning traceEvents or schemaVersion).
bool looks_like_torch_trace(std::string_view head);

// True for gzip data (magic 1f 8b).
bool is_gzip(std::string_view head);

}  // namespace sb::trace
