#include "telemetry/gpu_window.hpp"

#include <algorithm>
#include <map>

namespace sb::telemetry {

namespace {

struct Accumulator {
  double total = 0, max = 0;
  int n = 0;
  void add(const std::optional<double>& v) {
    if (!v) return;
    total += *v;
    max = n == 0 ? *v : std::max(max, *v);
    ++n;
  }
  std::optional<GaugeStats> stats() const {
    if (n == 0) return std::nullopt;
    return GaugeStats{total / n, max, n};
  }
};

struct PerGpu {
  GpuStageStats out;
  Accumulator util, mem, mem_pct, power, sm, memclk;
};

}  // namespace

GpuStageTelemetry gpu_window(std::span<const GpuSnapshot> snapshots, GpuTool tool, int failed_samples) {
  std::map<int, PerGpu> by_index;
  for (const GpuSnapshot& snap : snapshots) {
    for (const GpuReading& r : snap.gpus) {
      PerGpu& g = by_index[r.index];
      g.out.index = r.index;
      if (g.out.name.empty()) g.out.name = r.name;
      ++g.out.samples;
      g.util.add(r.utilization_pct);
      g.mem.add(r.memory_used_mib);
      g.mem_pct.add(r.memory_used_pct);
      g.power.add(r.power_w);
      g.sm.add(r.sm_clock_mhz);
      g.memclk.add(r.memory_clock_mhz);
      if (r.memory_total_mib) g.out.memory_total_mib = r.memory_total_mib;
    }
  }
  GpuStageTelemetry t;
  t.tool = std::string(gpu_tool_name(tool));
  t.failed_samples = failed_samples;
  for (auto& [index, g] : by_index) {
    g.out.utilization_pct = g.util.stats();
    g.out.memory_used_mib = g.mem.stats();
    g.out.memory_used_pct = g.mem_pct.stats();
    g.out.power_w = g.power.stats();
    g.out.sm_clock_mhz = g.sm.stats();
    g.out.memory_clock_mhz = g.memclk.stats();
    t.gpus.push_back(std::move(g.out));
  }
  return t;
}

std::vector<GpuIdleProblem> gpu_idle_problems(const GpuSnapshot& before) {
  std::vector<GpuIdleProblem> out;
  for (const GpuReading& r : before.gpus) {
    GpuIdleProblem p;
    p.index = r.index;
    if (r.utilization_pct && *r.utilization_pct >= kBusyUtilizationPct) p.utilization_pct = r.utilization_pct;
    if (r.memory_used_pct && *r.memory_used_pct >= kHeldMemoryPct) {
      p.memory_used_pct = r.memory_used_pct;
      p.memory_used_mib = r.memory_used_mib;
    }
    if (p.utilization_pct || p.memory_used_pct) out.push_back(p);
  }
  return out;
}

}  // namespace sb::telemetry
