#include "telemetry/gpu_sampler.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <exception>

#include "telemetry/command_output.hpp"

namespace sb::telemetry {

namespace {

constexpr double kToolTimeoutS = 5.0;  // nvidia-smi takes ~50-300 ms; a hung driver must not hang the run

}  // namespace

std::optional<GpuTool> resolve_gpu_tool(GpuTool wanted) {
  if (wanted == GpuTool::off) return GpuTool::off;
  if (wanted != GpuTool::automatic) {
    if (find_on_path(gpu_tool_name(wanted))) return wanted;
    return std::nullopt;
  }
  for (const GpuTool t : {GpuTool::nvidia_smi, GpuTool::amd_smi, GpuTool::rocm_smi})
    if (find_on_path(gpu_tool_name(t))) return t;
  return GpuTool::off;
}

GpuSampler::GpuSampler(GpuTool tool, double period_s)
    : tool_(tool), poll_(period_s, [this] { sample(); }) {}

std::optional<GpuSnapshot> GpuSampler::sample() {
  std::string error;
  const CommandOutput r = run_command(gpu_tool_command(tool_), kToolTimeoutS);
  if (r.timed_out) {
    error = fmt::format("{} did not answer within {:g} s", gpu_tool_name(tool_), kToolTimeoutS);
  } else if (r.exit_code != 0) {
    error = fmt::format("{} exited with status {}", gpu_tool_name(tool_), r.exit_code);
  } else {
    try {
      GpuSnapshot snap{now_ns(), parse_gpu_output(tool_, r.out)};
      const std::lock_guard lock(mu_);
      snapshots_.push_back(snap);
      return snap;
    } catch (const std::exception& e) {
      error = e.what();
    }
  }
  const std::lock_guard lock(mu_);
  failures_.push_back(now_ns());
  last_error_ = std::move(error);
  return std::nullopt;
}

std::optional<GpuSnapshot> GpuSampler::sample_now() { return sample(); }

GpuWindow GpuSampler::take(Nanos from, Nanos to) {
  GpuWindow w;
  const std::lock_guard lock(mu_);
  for (const GpuSnapshot& s : snapshots_)
    if (s.at_ns >= from && s.at_ns <= to) w.snapshots.push_back(s);
  for (const Nanos f : failures_) w.failed += f >= from && f <= to ? 1 : 0;
  std::erase_if(snapshots_, [to](const GpuSnapshot& s) { return s.at_ns <= to; });
  std::erase_if(failures_, [to](Nanos f) { return f <= to; });
  return w;
}

std::string GpuSampler::last_error() const {
  const std::lock_guard lock(mu_);
  return last_error_;
}

}  // namespace sb::telemetry
