#include "pipeline/run_telemetry.hpp"

#include "pipeline/modelled_time.hpp"
#include "metrics/ttft_breakdown.hpp"

#include "core/error.hpp"
#include "report/telemetry_text.hpp"
#include "telemetry/server_window.hpp"

namespace sb::pipeline {

namespace {

constexpr double kGpuPeriodS = 0.5;

void warn(const RunIo& io, const std::string& text) {
  if (!text.empty()) std::fprintf(io.err, "%s", text.c_str());
}

}  // namespace

void check_gpu_tool(const RunConfig& cfg) {
  if (cfg.gpu_telemetry == telemetry::GpuTool::off || telemetry::resolve_gpu_tool(cfg.gpu_telemetry)) return;
  throw UserError(report::format_gpu_tool_missing(telemetry::gpu_tool_name(cfg.gpu_telemetry)), ExitCode::config_error);
}

RunTelemetry::RunTelemetry(const RunConfig& cfg, const HeaderList& headers, const RunIo& io) {
  if (cfg.gpu_telemetry != telemetry::GpuTool::off) {
    const std::optional<telemetry::GpuTool> tool = telemetry::resolve_gpu_tool(cfg.gpu_telemetry);
    if (!tool)
      throw UserError(report::format_gpu_tool_missing(telemetry::gpu_tool_name(cfg.gpu_telemetry)),
                      ExitCode::config_error);  // removed from PATH since check_gpu_tool
    if (*tool == telemetry::GpuTool::off)
      warn(io, report::format_gpu_tool_none_found());
    else
      gpu_ = std::make_unique<telemetry::GpuSampler>(*tool, kGpuPeriodS);
  }
  if (gpu_) {
    // The seeds' "check nothing else is using the GPU" before trusting run-to-run differences.
    const std::optional<telemetry::GpuSnapshot> before = gpu_->sample_now();
    const std::string_view tool = telemetry::gpu_tool_name(gpu_->tool());
    if (before)
      warn(io, report::format_gpu_idle_problems(tool, telemetry::gpu_idle_problems(*before)));
    else
      warn(io, report::format_gpu_sample_failed(tool, gpu_->last_error()));
  }
  if (cfg.scrape_metrics) {
    telemetry::ScrapeTarget target = *cfg.scrape_metrics;
    target.headers = headers;
    scraper_ = std::make_unique<telemetry::MetricsScraper>(target);
    if (!scraper_->scrape_now()) {
      // The load is still worth measuring; a server without /metrics just has no server columns.
      warn(io, report::format_scrape_failed(scraper_->last_error()));
      scraper_.reset();
    }
  }
}

void RunTelemetry::begin_stage() {
  if (scraper_) scrape_from_ns_ = scraper_->scrape_now().value_or(now_ns());
  if (gpu_) gpu_from_ns_ = now_ns();
}

void RunTelemetry::end_stage(StageSummary& s, double time_factor) {
  if (scraper_) {
    const Nanos to = scraper_->scrape_now().value_or(now_ns());
    const telemetry::ScrapeWindow w = scraper_->take(scrape_from_ns_, to);
    s.server = telemetry::server_window(w.samples, w.failed);
    to_modelled(*s.server, time_factor);
    s.server->queue_side = telemetry::queue_side(s, *s.server);
    // Engines without per-request timings (vLLM) still split TTFT: from the stage's histogram means.
    if (!s.ttft_breakdown && s.server->prefill_time && s.server->prefill_time->count > 0 && s.completed > 0) {
      ServerStageMeans means;
      means.prefill_ms = s.server->prefill_time->mean_ms;
      if (s.server->queue_time && s.server->queue_time->count > 0) means.queue_ms = s.server->queue_time->mean_ms;
      means.requests = static_cast<int>(s.server->prefill_time->count);
      s.ttft_breakdown = ttft_breakdown_from_means(s.ttft.mean_ms, means);
    }
  }
  if (gpu_) {
    const telemetry::GpuWindow w = gpu_->take(gpu_from_ns_, now_ns());
    s.gpu = telemetry::gpu_window(w.snapshots, gpu_->tool(), w.failed);
  }
}

}  // namespace sb::pipeline
