#pragma once
// Reads a sweep stage's `servebench.server_metrics` and `servebench.gpu_telemetry` (written by
// report/telemetry_json.cpp) back into the model; absent or malformed objects leave them unset.
#include <nlohmann/json.hpp>

#include "results/model.hpp"

namespace sb::results::detail {

void read_telemetry_keys(const nlohmann::json& servebench_block, Stage& s);

// environment.clocks_at_start of a sweep document; nullopt when absent (older documents) or incomplete.
std::optional<HostClocks> read_clocks_at_start(const nlohmann::json& doc);
// environment.server_time_scale and time_factor (1 each when absent or not positive numbers).
void read_time_scale(const nlohmann::json& doc, double& server_time_scale, double& time_factor);

}  // namespace sb::results::detail
