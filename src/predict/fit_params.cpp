#include "predict/fit_params.hpp"

namespace sb::predict {
namespace {

std::vector<FitParam> fittable_knobs() {
  std::vector<FitParam> out;
  for (const sim::EngineKnob& k : sim::engine_knobs())
    if (k.fit) out.push_back({k.key, &k, k.fit->lower, k.fit->upper, k.fit->tensor_parallel_only});
  return out;
}

}  // namespace

double FitParam::get(const sim::EngineConfig& config) const {
  return std::get<double>(*sim::knob_value(*knob, config));
}

void FitParam::set(sim::EngineConfig& config, double value) const { sim::set_knob(*knob, value, config); }

std::span<const FitParam> fit_params() {
  static const std::vector<FitParam> table = fittable_knobs();
  return table;
}

std::vector<const FitParam*> fitted_params(const sim::EngineConfig& config) {
  std::vector<const FitParam*> out;
  for (const FitParam& p : fit_params())
    if (!p.tensor_parallel_only || config.hardware.tensor_parallel > 1) out.push_back(&p);
  return out;
}

}  // namespace sb::predict
