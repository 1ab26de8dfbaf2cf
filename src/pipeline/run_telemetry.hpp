#pragma once
// The run's side channels (--scrape-metrics, --gpu-telemetry): started before the first stage (with
// the check that no GPU is already busy), a boundary scrape at each stage's start and end, and the
// stage's server and GPU numbers put into its StageSummary. Nothing here touches the load client.
#include <memory>

#include "metrics/stage_summary.hpp"
#include "pipeline/run_config.hpp"
#include "pipeline/run_pipeline.hpp"
#include "telemetry/gpu_sampler.hpp"
#include "telemetry/metrics_scraper.hpp"

namespace sb::pipeline {

// Throws sb::UserError (exit 2) when the asked-for GPU tool is not on PATH: before anything is sent.
void check_gpu_tool(const RunConfig& cfg);

class RunTelemetry {
 public:
  // Prints its warnings (a GPU already busy, /metrics not answering) to io.err.
  RunTelemetry(const RunConfig& cfg, const HeaderList& headers, const RunIo& io);
  bool active() const { return scraper_ != nullptr || gpu_ != nullptr; }
  void begin_stage();
  // `time_factor`: the run's modelled-time factor (modelled_time.hpp), applied to the server's latencies.
  void end_stage(StageSummary& s, double time_factor = 1);

 private:
  std::unique_ptr<telemetry::MetricsScraper> scraper_;
  std::unique_ptr<telemetry::GpuSampler> gpu_;
  Nanos scrape_from_ns_ = 0, gpu_from_ns_ = 0;
};

}  // namespace sb::pipeline
