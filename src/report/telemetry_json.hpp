#pragma once
// The sweep document's per-stage `servebench.server_metrics` and `servebench.gpu_telemetry` objects
// (docs/results-format.md "Server metrics and GPU telemetry"); present only when the run had them.
#include <nlohmann/json.hpp>

#include "metrics/telemetry_stage.hpp"

namespace sb::report {

nlohmann::ordered_json server_metrics_json(const ServerStageMetrics& m);
nlohmann::ordered_json gpu_telemetry_json(const GpuStageTelemetry& t);
const char* to_string(QueueSide side);  // "agree" | "server_queued" | "client_queued"

}  // namespace sb::report
