#pragma once
// The cost-model numbers `servebench calibrate` fits: the rows of sim/engine_knobs.cpp that carry
// fit bounds, in that table's order. A knob becomes fittable there, not here.
#include <span>
#include <string_view>
#include <vector>

#include "sim/engine.hpp"
#include "sim/engine_knobs.hpp"

namespace sb::predict {

struct FitParam {
  std::string_view name;  // [cost] key in the engine TOML, e.g. "step_overhead_us"
  const sim::EngineKnob* knob = nullptr;
  double lower = 0, upper = 0;        // search bounds (the fit works on log values: both > 0)
  bool tensor_parallel_only = false;  // no effect with TP 1: not fitted there (it cannot be seen)

  double get(const sim::EngineConfig& config) const;
  void set(sim::EngineConfig& config, double value) const;
};

std::span<const FitParam> fit_params();

// The parameters fitted for `config`: the table less those that have no effect on it.
std::vector<const FitParam*> fitted_params(const sim::EngineConfig& config);

}  // namespace sb::predict
