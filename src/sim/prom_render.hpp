#pragma once
// Renders the engine's state as Prometheus text exposition (format 0.0.4) with vLLM V1's metric
// names and labels ({engine="0",model_name="…"}), so dashboards and `servebench tune` scrape the
// simulator exactly as they scrape vLLM. Formatting only: the numbers come from Engine.
#include <string>

#include "sim/engine.hpp"

namespace sb::sim {

void render_engine_metrics(const Engine& engine, const std::string& model_name, std::string& out);

// Python prometheus_client style: integral values keep ".0" (24.0), others the shortest round-trip.
std::string prom_number(double value);

}  // namespace sb::sim
