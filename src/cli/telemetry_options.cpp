#include "cli/telemetry_options.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "net/endpoint.hpp"
#include "telemetry/gpu_readings.hpp"

namespace sb::cli {

namespace {

void read_scrape_metrics(const OptionReader& r, RunConfig& c) {
  if (!r.has("scrape-metrics")) return;
  // The config file writes `scrape_metrics = true` (or false) for the bare flag.
  const std::string value = r.text("scrape-metrics").value_or("");
  if (value == "false") return;
  telemetry::ScrapeTarget t;
  if (value.empty() || value == "true") {
    t.endpoint = c.client.endpoint;
    t.path = "/metrics";
  } else {
    try {
      t.endpoint = parse_base_url(value);
      t.endpoint.insecure = c.client.endpoint.insecure;
      t.path = "";  // the URL names the page itself
    } catch (const UserError& e) {
      r.error("scrape-metrics", e.what());
      return;
    }
  }
  c.scrape_metrics = t;
}

void read_gpu_telemetry(const OptionReader& r, RunConfig& c) {
  const std::string tool = r.text("gpu-telemetry").value_or("off");
  using telemetry::GpuTool;
  if (tool == "off")
    c.gpu_telemetry = GpuTool::off;
  else if (tool == "auto")
    c.gpu_telemetry = GpuTool::automatic;
  else if (tool == "nvidia-smi")
    c.gpu_telemetry = GpuTool::nvidia_smi;
  else if (tool == "rocm-smi")
    c.gpu_telemetry = GpuTool::rocm_smi;
  else if (tool == "amd-smi")
    c.gpu_telemetry = GpuTool::amd_smi;
  else
    r.error("gpu-telemetry", fmt::format("'{}' is not one of auto, nvidia-smi, rocm-smi, amd-smi, off", tool));
}

}  // namespace

void read_telemetry(const OptionReader& r, RunConfig& c) {
  read_scrape_metrics(r, c);
  read_gpu_telemetry(r, c);
}

}  // namespace sb::cli
