// Every profiler parser on arbitrary text: a one-line sb::UserError or a trace, never a crash or
// another exception; events it returns have end >= start.
#include <cstdint>
#include <string>

#include "core/error.hpp"
#include "trace/detect.hpp"
#include "trace/gunzip.hpp"
#include "trace/kernel_stats.hpp"

namespace {

void check(const sb::trace::KernelTrace& t) {
  for (const auto& e : t.events)
    if (e.end_ns < e.start_ns) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace sb::trace;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const TraceFileFormat detected = detect_trace_text(text.substr(0, 1024));
  for (int f = 0; f <= static_cast<int>(TraceFileFormat::kernel_stats); ++f) {
    const auto format = static_cast<TraceFileFormat>(f);
    if (format == TraceFileFormat::unknown || (format != detected && (data[0] & 1))) continue;
    try {
      if (format == TraceFileFormat::kernel_stats) parse_kernel_stats(text, "fuzz");
      else check(parse_trace_text(format, text, "fuzz"));
    } catch (const sb::UserError&) {
    }
  }
  try {
    gunzip(text, "fuzz");
  } catch (const sb::UserError&) {
  }
  return 0;
}
