#pragma once
// The one model every profiler parser produces (docs/trace.md): GPU operations with start/end in
// integer ns of the source's own clock domain, plus where they ran. Converting to Unix time needs an
// offset the trace itself does not carry (except the PyTorch trace, which is already Unix ns), so the
// clock domain is recorded by name and alignment happens later (analyze/, docs/trace.md).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sb::trace {

enum class OpKind { kernel, memcpy, memset };

std::string_view op_kind_name(OpKind kind);  // "kernel" | "memcpy" | "memset"

struct KernelEvent {
  std::string name;  // as the tool printed it (rocprof v1 keeps its ".kd" suffix; see normalize_kernel_name)
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
  int device = 0;             // GPU index: rocprof gpu-id, rocprofv3 agent number, nsys "(N)", torch device
  std::int64_t stream = 0;    // HIP/CUDA stream; rocprof v1 has none and uses the queue id
  std::int64_t queue = -1;    // HSA queue (ROCm only), -1 when unknown
  std::int64_t pid = -1;      // dispatching process, -1 when the format does not say
  std::int64_t correlation = -1;  // links to the API call; shared by every kernel of one CUDA graph launch
  std::int64_t bytes = -1;    // copies/memsets when the format gives a size, else -1
  OpKind kind = OpKind::kernel;

  std::int64_t duration_ns() const noexcept { return end_ns - start_ns; }
};

// Known clock domains (docs/trace.md, "source | clock_domain").
inline constexpr std::string_view kClockBoottime = "CLOCK_BOOTTIME";  // rocprof v1 / rocprofv3 ns since boot
inline constexpr std::string_view kClockNsysSession = "nsys-session";  // ns since the nsys session started
inline constexpr std::string_view kClockUnix = "unix";                 // Unix-epoch ns (PyTorch/Kineto)

struct KernelTrace {
  std::vector<KernelEvent> events;
  std::string source_format;  // "rocprof_v1" | "rocprofv3" | "nsys" | "torch"
  std::string clock_domain;   // one of the kClock* names
  bool simulated = false;     // a servebench sim sidecar (FILE.servebench.json) says so
  // Unix ns = trace ns + this, when known (torch: 0; sim sidecar: unix_minus_trace_ns).
  std::optional<std::int64_t> unix_offset_ns;
  std::vector<std::string> files;     // what was read, for messages
  std::vector<std::string> warnings;  // e.g. "FILE:LINE: last row cut off, ignored"
};

}  // namespace sb::trace
