#pragma once
// --scrape-metrics [URL] and --gpu-telemetry TOOL -> RunConfig (docs/run.md "Server metrics and GPU telemetry").
#include "cli/option_reader.hpp"
#include "pipeline/run_config.hpp"

namespace sb::cli {

using pipeline::RunConfig;

// After read_target (the default metrics URL is the run's base URL + /metrics).
void read_telemetry(const OptionReader& r, RunConfig& c);

}  // namespace sb::cli
