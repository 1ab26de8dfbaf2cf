#pragma once
// Shared setup for the simulator-engine tests: an EngineConfig from preset names.
#include <stdexcept>
#include <string>

#include "sim/engine.hpp"
#include "sim/presets.hpp"

namespace sb::sim::testing_util {

inline EngineConfig make_config(const std::string& model, const std::string& gpu, int tp = 1) {
  const ModelPreset* m = find_model_preset(model);
  const GpuPreset* g = find_gpu_preset(gpu);
  if (m == nullptr || g == nullptr) throw std::runtime_error("unknown preset in test: " + model + "/" + gpu);
  EngineConfig c;
  c.hardware.model = *m;
  c.hardware.gpu = *g;
  c.hardware.cost = g->cost;  // as the CLI resolves presets (cli/sim_engine_flags.cpp)
  c.hardware.tensor_parallel = tp;
  return c;
}

}  // namespace sb::sim::testing_util
