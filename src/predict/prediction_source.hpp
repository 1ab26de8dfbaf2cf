#pragma once
// The sweep document's `prediction` object (docs/results-format.md): what a prediction was made
// from, so a predicted sweep is never mistaken for a measured one and can be made again.
#include <string>

#include "sim/engine.hpp"

namespace sb::predict {

struct PredictionSource {
  std::string model_preset, gpu_preset;
  std::string engine_config;  // --engine-config FILE, "" when none
  const sim::EngineConfig* engine = nullptr;
};

// A JSON object text: presets, the engine config file, tensor parallel size, the scheduler
// settings, time scale and every cost parameter of the fit table.
std::string prediction_source_json(const PredictionSource& s);

}  // namespace sb::predict
