#include "predict/fit_params.hpp"

#include <array>

namespace sb::predict {

std::span<const FitParam> fit_params() {
  // Bounds: physically possible values with room on both sides of every preset; efficiencies are
  // fractions of the data sheet's peak, so they stay at most 1.
  // seq_overhead_us, roofline_sharpness and tp_bandwidth_falloff keep their preset values: a
  // staircase's stages move them together with step_overhead_us and bandwidth_efficiency, which
  // the fit would then trade against each other (docs/predict.md).
  static const std::array<FitParam, 5> table{{
      {"compute_efficiency", &sim::CostParams::compute_efficiency, 0.02, 1.0, false},
      {"bandwidth_efficiency", &sim::CostParams::bandwidth_efficiency, 0.05, 1.0, false},
      {"step_overhead_us", &sim::CostParams::step_overhead_us, 1.0, 1e5, false},
      {"allreduce_latency_us", &sim::CostParams::allreduce_latency_us, 0.1, 1e4, true},
      {"link_efficiency", &sim::CostParams::link_efficiency, 0.05, 1.0, true},
  }};
  return table;
}

std::vector<const FitParam*> fitted_params(const sim::EngineConfig& config) {
  std::vector<const FitParam*> out;
  for (const FitParam& p : fit_params())
    if (!p.tensor_parallel_only || config.hardware.tensor_parallel > 1) out.push_back(&p);
  return out;
}

}  // namespace sb::predict
