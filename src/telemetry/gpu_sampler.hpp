#pragma once
// Samples the GPUs with the vendor tool every `period_s` on a thread of its own: each call of the
// tool is one snapshot (gpu_readings.hpp), stamped when its output was read.
#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "telemetry/gpu_window.hpp"

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
  ~GpuSampler();
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
  void poll(std::stop_token stop);

  GpuTool tool_;
  double period_s_;
  mutable std::mutex mu_;
  std::condition_variable_any wake_;
  std::vector<GpuSnapshot> snapshots_;
  std::vector<Nanos> failures_;
  std::string last_error_;
  std::jthread thread_;
};

}  // namespace sb::telemetry
