#include "report/telemetry_text.hpp"

#include <fmt/format.h>

namespace sb::report {

namespace {

std::string gauge_text(const char* what, const std::optional<GaugeStats>& g, double scale, const char* unit) {
  if (!g) return "";
  return fmt::format("{} {:.1f}{} (max {:.1f}{})", what, g->mean * scale, unit, g->max * scale, unit);
}

void join(std::string& out, const std::string& part) {
  if (part.empty()) return;
  if (!out.empty()) out += ", ";
  out += part;
}

// The mean only: it is exact (Δsum/Δcount), while a percentile is only as fine as the server's
// buckets (vLLM's queue-time buckets start at 0.3 s: every fast request "is" 150 ms at p50).
std::string histogram_text(const char* what, const std::optional<HistogramWindow>& h) {
  if (!h || h->count <= 0) return "";
  return fmt::format("{} mean {:.1f} ms", what, h->mean_ms);
}

std::string server_line(const ServerStageMetrics& m) {
  std::string parts;
  join(parts, gauge_text("running", m.running, 1, ""));
  join(parts, gauge_text("waiting", m.waiting, 1, ""));
  join(parts, gauge_text("KV cache", m.kv_cache_usage, 100, "%"));
  if (m.preemptions) join(parts, fmt::format("preemptions {:g}", *m.preemptions));
  if (m.prefix_cache_hit_rate) join(parts, fmt::format("prefix hits {:.0f}%", 100 * *m.prefix_cache_hit_rate));
  join(parts, histogram_text("queue", m.queue_time));
  join(parts, histogram_text("TTFT", m.ttft));
  if (parts.empty()) parts = "no known metric names in /metrics";
  std::string line = fmt::format("Server ({}): {}", m.dialect, parts);
  if (m.failed_scrapes > 0) line += fmt::format(" [{} scrapes failed]", m.failed_scrapes);
  line += '\n';
  const std::string side = queue_side_text(m.queue_side);
  if (!side.empty()) line += "  note: " + side + '\n';
  return line;
}

std::string gpu_line(const GpuStageStats& g) {
  std::string parts;
  join(parts, gauge_text("util", g.utilization_pct, 1, "%"));
  if (g.memory_used_mib)
    join(parts, fmt::format("mem {:.0f} MiB (max {:.0f})", g.memory_used_mib->mean, g.memory_used_mib->max));
  else
    join(parts, gauge_text("mem", g.memory_used_pct, 1, "%"));
  join(parts, gauge_text("power", g.power_w, 1, " W"));
  if (g.sm_clock_mhz) join(parts, fmt::format("clock {:.0f} MHz", g.sm_clock_mhz->mean));
  return fmt::format("GPU {}{}: {}\n", g.index, g.name.empty() ? "" : " (" + g.name + ")", parts.empty() ? "-" : parts);
}

}  // namespace

std::string format_gpu_tool_missing(std::string_view tool) {
  return fmt::format("--gpu-telemetry {}: {} is not on PATH (use auto to take whichever GPU tool is there, or off)",
                     tool, tool);
}

std::string format_gpu_tool_none_found() {
  return "warning: --gpu-telemetry auto: none of nvidia-smi, amd-smi, rocm-smi is on PATH; no GPU telemetry\n";
}

std::string format_gpu_sample_failed(std::string_view tool, const std::string& why) {
  return fmt::format("warning: --gpu-telemetry {}: the first sample failed ({}); later samples may too\n", tool, why);
}

std::string format_gpu_idle_problems(std::string_view tool, const std::vector<GpuIdleProblem>& problems) {
  std::string out;
  for (const GpuIdleProblem& p : problems) {
    if (p.utilization_pct)
      out += fmt::format(
          "warning: GPU {} is {:.0f}% busy before any load was sent ({}): another process is using "
          "it, and run-to-run differences cannot be trusted\n",
          p.index, *p.utilization_pct, tool);
    if (p.memory_used_pct) {
      const std::string mib = p.memory_used_mib ? fmt::format("{:.0f} MiB, ", *p.memory_used_mib) : "";
      out += fmt::format(
          "warning: GPU {} already holds {}{:.0f}% of its memory before the load ({}): the server's "
          "own weights and KV cache, or another process's (check {} for its processes)\n",
          p.index, mib, *p.memory_used_pct, tool, tool);
    }
  }
  return out;
}

std::string format_scrape_failed(const std::string& why) {
  return fmt::format("warning: --scrape-metrics: {}; the stages will have no server metrics\n", why);
}

std::string queue_side_text(QueueSide side) {
  switch (side) {
    case QueueSide::server_queued:
      return "the server queued requests (waiting > 0) while the client held none back: the server ran fewer "
             "at once than the client had in flight";
    case QueueSide::client_queued:
      return "the client held requests back (its concurrency limit or dispatch) while the server had none "
             "waiting: the server could have taken more";
    case QueueSide::agree:
      break;
  }
  return "";
}

std::string format_stage_telemetry(const StageSummary& s) {
  std::string out;
  if (s.server) out += server_line(*s.server);
  if (s.gpu) {
    for (const GpuStageStats& g : s.gpu->gpus) out += gpu_line(g);
    if (s.gpu->failed_samples > 0) out += fmt::format("  ({} {} samples failed)\n", s.gpu->failed_samples, s.gpu->tool);
  }
  return out;
}

}  // namespace sb::report
