#pragma once
// Simulated kernel traces. plan_step_kernels() turns one engine step into the kernels a vLLM
// forward pass launches (H2D input copy; per layer: norm, QKV GEMM, rotary, KV-cache write,
// attention, O GEMM, all-reduce under TP, fused add+norm, gate/up GEMM, SiLU-and-mul, down GEMM;
// then lm_head GEMM and sampling), with durations split from the cost model. KernelTraceFormatter
// writes them as rocprof v1 results.csv, rocprofv3 kernel_trace.csv or nsys cuda_gpu_trace CSV, in
// that tool's clock domain (docs/trace.md, "source | clock_domain"). Sans-I/O: the caller writes the text.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.hpp"
#include "sim/cost_model.hpp"

namespace sb::sim {

enum class TraceFormat { rocprof_v1, rocprofv3, nsys };

std::optional<TraceFormat> parse_trace_format(std::string_view name);  // rocprof | rocprofv3 | nsys
std::string_view trace_format_name(TraceFormat f);

struct KernelEvent {
  std::string_view name;  // points into static storage
  Nanos start_ns = 0;     // steady clock
  Nanos end_ns = 0;
  bool copy = false;  // host-to-device copy (nsys writes it as a memcpy row)
};

struct StepTiming {
  Nanos start_ns = 0;  // step start (steady clock)
  Nanos end_ns = 0;
  double time_scale = 1;  // the engine's speed-up; kernel durations shrink by the same factor
};

// Appends the step's kernels, laid end to end after the host overhead and ending at end_ns, so
// their durations sum to the step's device-busy time.
void plan_step_kernels(const CostModel& model, const StepShape& shape, const StepCost& cost, const StepTiming& timing,
                       std::vector<KernelEvent>& out);

struct TraceDevice {
  std::string name;  // nsys Device column, e.g. "NVIDIA H100 80GB HBM3"
  bool amd = false;
  int pid = 1;  // process id written into the rows
};

class KernelTraceFormatter {
 public:
  // Timestamps written = steady_ns + clock_offset_ns: (BOOTTIME − MONOTONIC) for rocprof,
  // −(steady time at profile start) for nsys (ns since the session started).
  KernelTraceFormatter(TraceFormat format, TraceDevice device, std::int64_t clock_offset_ns);

  std::string header() const;
  void append_rows(std::span<const KernelEvent> kernels, std::string& out);

 private:
  void rocprof_v1_row(const KernelEvent& k, std::string& out);
  void rocprofv3_row(const KernelEvent& k, std::string& out);
  void nsys_row(const KernelEvent& k, std::string& out);

  TraceFormat format_;
  TraceDevice device_;
  std::int64_t offset_ns_;
  std::uint64_t dispatch_ = 0;
};

}  // namespace sb::sim
