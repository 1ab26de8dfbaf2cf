#pragma once
// rocprofv3 (rocprofiler-sdk) CSV traces (docs/trace.md): *_kernel_trace.csv in the current
// 22-column layout ("Agent 2", Stream_Id) or the old 18-column one (numeric Agent_Id, no Stream_Id),
// and *_memory_copy_trace.csv with 8 or 7 columns. Timestamps: CLOCK_BOOTTIME ns.
#include <string_view>

#include "trace/kernel_event.hpp"

namespace sb::trace {

// `source` names the text in errors; a leading "<pid>_" in its file name sets KernelEvent::pid
// (rocprofv3 writes one file set per process and keeps the pid only in the name).
KernelTrace parse_rocprofv3_kernel_trace(std::string_view text, std::string_view source);

// Each copy becomes an OpKind::memcpy event named by its Direction ("MEMORY_COPY_HOST_TO_DEVICE"),
// on the GPU side of the copy.
KernelTrace parse_rocprofv3_memory_copy_trace(std::string_view text, std::string_view source);

bool is_rocprofv3_kernel_header(std::string_view header_line);
bool is_rocprofv3_memory_copy_header(std::string_view header_line);

}  // namespace sb::trace
