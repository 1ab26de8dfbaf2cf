#pragma once
// The engine TOML calibrate writes (`-o fitted.toml`), in the format `servebench sim
// --engine-config` and `servebench predict --engine-config` read (sim/engine_toml.hpp): the
// presets by name, the scheduler settings the measured server ran with, and every cost parameter
// (the fitted ones with their start values in a comment). With --kernels, comments record the
// traces and each stage's kernel target (measured and fitted GPU ms per output token): the loaders
// take no keys but the engine's and the cost model's.
#include <string>
#include <vector>

#include "predict/calibrate.hpp"
#include "sim/engine.hpp"

namespace sb::predict {

struct FittedTomlInput {
  std::string model_preset, gpu_preset;  // names as given to calibrate
  std::string source;                    // the sweep document it was fitted to
  const CalibrateResult* result = nullptr;
  std::vector<std::string> kernel_traces;  // --kernels: named with the stages' kernel targets in comments
};

std::string fitted_toml(const FittedTomlInput& in);

}  // namespace sb::predict
