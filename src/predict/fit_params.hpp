#pragma once
// The cost-model numbers `servebench calibrate` fits, in ONE table (fit_params.cpp): the TOML key
// of `[cost]` that --engine-config reads, the CostParams member, and the bounds the search keeps
// to. When sim/cost_model.hpp gains or renames a parameter, this table is the one place to follow.
#include <span>
#include <string_view>
#include <vector>

#include "sim/cost_model.hpp"
#include "sim/engine.hpp"

namespace sb::predict {

struct FitParam {
  std::string_view name;              // [cost] key in the engine TOML, e.g. "step_overhead_us"
  double sim::CostParams::*member;    // the number it sets
  double lower = 0, upper = 0;        // search bounds (the fit works on log values: both > 0)
  bool tensor_parallel_only = false;  // no effect with TP 1: not fitted there (it cannot be seen)
};

std::span<const FitParam> fit_params();

// The parameters fitted for `config`: the table less those that have no effect on it.
std::vector<const FitParam*> fitted_params(const sim::EngineConfig& config);

}  // namespace sb::predict
