#pragma once
// Per-stage GPU numbers from the stamped readings of gpu_sampler.hpp, and the check before the first
// stage that no GPU is already busy (sans-I/O).
#include <span>
#include <vector>

#include "core/clock.hpp"
#include "metrics/telemetry_stage.hpp"
#include "telemetry/gpu_readings.hpp"

namespace sb::telemetry {

struct GpuSnapshot {
  Nanos at_ns = 0;  // steady clock, when the tool's output was read
  std::vector<GpuReading> gpus;
};

// Mean and max per GPU over the snapshots (time order not needed); GPUs by index.
GpuStageTelemetry gpu_window(std::span<const GpuSnapshot> snapshots, GpuTool tool, int failed_samples);

// A GPU at or above this utilisation before any load was sent is busy with someone else's work.
inline constexpr double kBusyUtilizationPct = 10.0;
// Memory held before the load (the server's own weights and KV cache included: it says how much).
inline constexpr double kHeldMemoryPct = 5.0;

// One entry per GPU that is busy or holds memory in `before` (a snapshot taken before the first stage).
std::vector<GpuIdleProblem> gpu_idle_problems(const GpuSnapshot& before);

}  // namespace sb::telemetry
