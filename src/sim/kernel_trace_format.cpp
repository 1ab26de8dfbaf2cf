// Writes planned kernels in the real CSV layouts of rocprof v1, rocprofv3 and nsys (see
// docs/trace.md and the samples in tests/data/trace/).
#include <fmt/format.h>
#include <functional>
#include <iterator>

#include "sim/kernel_trace.hpp"

namespace sb::sim {
namespace {

// rocprof v1 marks code-object symbols: C++ kernels get " [clone .kd]", plain symbols ".kd".
std::string rocprof_v1_name(std::string_view name) {
  const bool cxx = name.find('(') != std::string_view::npos;
  return fmt::format("{}{}", name, cxx ? " [clone .kd]" : ".kd");
}

// nsys CSV quotes only fields holding a comma or a quote.
std::string csv_minimal(std::string_view field) {
  if (field.find_first_of(",\"") == std::string_view::npos) return std::string(field);
  std::string out = "\"";
  for (const char c : field) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

// A stable small id per distinct kernel name (rocprofv3 Kernel_Id): names come from static storage.
std::uint64_t kernel_id(std::string_view name) {
  static constexpr std::uint64_t kBase = 40;
  return kBase + std::hash<std::string_view>{}(name) % 97;
}

}  // namespace

std::optional<TraceFormat> parse_trace_format(std::string_view name) {
  if (name == "rocprof" || name == "rocprof_v1") return TraceFormat::rocprof_v1;
  if (name == "rocprofv3") return TraceFormat::rocprofv3;
  if (name == "nsys") return TraceFormat::nsys;
  return std::nullopt;
}

std::string_view trace_format_name(TraceFormat f) {
  switch (f) {
    case TraceFormat::rocprof_v1:
      return "rocprof";
    case TraceFormat::rocprofv3:
      return "rocprofv3";
    case TraceFormat::nsys:
      return "nsys";
  }
  return "?";
}

KernelTraceFormatter::KernelTraceFormatter(TraceFormat format, TraceDevice device, std::int64_t clock_offset_ns)
    : format_(format), device_(std::move(device)), offset_ns_(clock_offset_ns) {}

std::string KernelTraceFormatter::header() const {
  switch (format_) {
    case TraceFormat::rocprof_v1:
      return "\"Index\",\"KernelName\",\"gpu-id\",\"queue-id\",\"queue-index\",\"pid\",\"tid\",\"grd\",\"wgr\","
             "\"lds\",\"scr\",\"arch_vgpr\",\"accum_vgpr\",\"sgpr\",\"wave_size\",\"sig\",\"obj\",\"DispatchNs\","
             "\"BeginNs\",\"EndNs\",\"CompleteNs\",\"DurationNs\"\n";
    case TraceFormat::rocprofv3:
      return "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Stream_Id\",\"Thread_Id\",\"Dispatch_Id\",\"Kernel_Id\","
             "\"Kernel_Name\",\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\",\"LDS_Block_Size\","
             "\"Scratch_Size\",\"VGPR_Count\",\"Accum_VGPR_Count\",\"SGPR_Count\",\"Workgroup_Size_X\","
             "\"Workgroup_Size_Y\",\"Workgroup_Size_Z\",\"Grid_Size_X\",\"Grid_Size_Y\",\"Grid_Size_Z\"\n";
    case TraceFormat::nsys:
      return "Start (ns),Duration (ns),CorrId,GrdX,GrdY,GrdZ,BlkX,BlkY,BlkZ,Reg/Trd,StcSMem (MB),DymSMem (MB),"
             "Bytes (MB),Throughput (MB/s),SrcMemKd,DstMemKd,Device,Ctx,GreenCtx,Strm,Name\n";
  }
  return {};
}

void KernelTraceFormatter::append_rows(std::span<const KernelEvent> kernels, std::string& out) {
  for (const KernelEvent& k : kernels) {
    switch (format_) {
      case TraceFormat::rocprof_v1:
        rocprof_v1_row(k, out);
        break;
      case TraceFormat::rocprofv3:
        rocprofv3_row(k, out);
        break;
      case TraceFormat::nsys:
        nsys_row(k, out);
        break;
    }
    ++dispatch_;
  }
}

void KernelTraceFormatter::rocprof_v1_row(const KernelEvent& k, std::string& out) {
  const std::int64_t begin = k.start_ns + offset_ns_;
  const std::int64_t end = k.end_ns + offset_ns_;
  // Dispatch a few µs before the kernel starts; completion observed shortly after it ends.
  fmt::format_to(std::back_inserter(out),
                 "{},\"{}\",0,0,{},{},{},65536,256,0,0,64,0,32,64,\"0x0\",\"0x7f3c1a2b{:04x}\",{},{},{},{},{}\n",
                 dispatch_, rocprof_v1_name(k.name), dispatch_ % 1024, device_.pid, device_.pid, kernel_id(k.name),
                 begin - 4000, begin, end, end + 2500, end - begin);
}

void KernelTraceFormatter::rocprofv3_row(const KernelEvent& k, std::string& out) {
  fmt::format_to(std::back_inserter(out),
                 "\"KERNEL_DISPATCH\",\"Agent 2\",1,1,{},{},{},\"{}\",{},{},{},0,0,64,0,32,256,1,1,65536,1,1\n",
                 device_.pid, dispatch_ + 1, kernel_id(k.name), k.name, dispatch_ + 1, k.start_ns + offset_ns_,
                 k.end_ns + offset_ns_);
}

void KernelTraceFormatter::nsys_row(const KernelEvent& k, std::string& out) {
  const std::int64_t start = k.start_ns + offset_ns_;
  const std::int64_t dur = k.end_ns - k.start_ns;
  const std::string device = fmt::format("{} (0)", device_.name);
  if (k.copy) {
    fmt::format_to(std::back_inserter(out), "{},{},{},,,,,,,,,,0.001,{:.3f},Pinned,Device,{},1,,7,{}\n", start, dur,
                   dispatch_ + 1, dur > 0 ? 1e6 / static_cast<double>(dur) : 0.0, csv_minimal(device), k.name);
    return;
  }
  fmt::format_to(std::back_inserter(out), "{},{},{},132,1,1,128,1,1,128,0.000,0.049,,,,,{},1,,7,{}\n", start, dur,
                 dispatch_ + 1, csv_minimal(device), csv_minimal(k.name));
}

}  // namespace sb::sim
