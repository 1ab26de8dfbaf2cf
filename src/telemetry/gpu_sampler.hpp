#pragma once
// Samples the GPUs with the vendor tool every `period_s` on a thread of its own: each call of the
// tool is one snapshot (gpu_readings.hpp), stamped when its output was read.
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "telemetry/gpu_window.hpp"
#include "telemetry/periodic_poll.hpp"

namespace sb::telemetry {

// `automatic`: the first of nvidia-smi, amd-smi, rocm-smi on PATH (amd-smi is rocm-smi's successor);
// off when none is. Any other tool: itself when on PATH, else nullopt (the caller says so).
std::optional<GpuTool> resolve_gpu_tool(GpuTool wanted);

struct GpuWindow {
  std::vector<GpuSnapshot> snapshots;
  int failed = 0;
};

class GpuSampler {
 public:
  GpuSampler(GpuTool tool, double period_s);  // `tool` resolved (not automatic, not off)
  GpuSampler(const GpuSampler&) = delete;
  GpuSampler& operator=(const GpuSampler&) = delete;

  // Runs the tool once now on the calling thread (the check before the first stage).
  std::optional<GpuSnapshot> sample_now();
  // Snapshots and failures with from <= time <= to; older ones are dropped.
  GpuWindow take(Nanos from, Nanos to);
  GpuTool tool() const { return tool_; }
  std::string last_error() const;

 private:
  std::optional<GpuSnapshot> sample();

  GpuTool tool_;
  mutable std::mutex mu_;
  std::vector<GpuSnapshot> snapshots_;
  std::vector<Nanos> failures_;
  std::string last_error_;
  PeriodicPoll poll_;  // last: started once the members above exist, stopped before they go
};

}  // namespace sb::telemetry
