#include "predict/kernel_start.hpp"

#include <algorithm>
#include <cmath>
#include <string_view>

#include "predict/fit_params.hpp"

namespace sb::predict {
namespace {

// The fit table's bounds of one parameter, so the start is a point the search may take.
void clamp_to_table(sim::EngineConfig& c, std::string_view name) {
  for (const FitParam& p : fit_params())
    if (p.name == name) p.set(c, std::clamp(p.get(c), p.lower, p.upper));
}

struct Moves {
  double log_gpu = 0, step_ms = 0;  // means over the stages that have the metric
};

Moves moves_at(const sim::EngineConfig& c, const std::vector<const MeasuredStage*>& stages, const StageReplay& replay) {
  Moves m;
  int gpu_n = 0, step_n = 0;
  for (const MeasuredStage* s : stages) {
    const StageMetrics p = replay(c, *s);
    if (s->measured.gpu_ms_per_token > 0 && p.gpu_ms_per_token > 0) {
      m.log_gpu += std::log(p.gpu_ms_per_token / s->measured.gpu_ms_per_token);
      ++gpu_n;
    }
    // The measured step time: the trace's median step period, else TPOT (calibrate.cpp's step_time_error2).
    const bool period = s->measured.step_p50_ms > 0;
    const double meas = period ? s->measured.step_p50_ms : s->measured.tpot_p50_ms;
    const double pred = period ? p.step_p50_ms : p.tpot_p50_ms;
    if (meas > 0 && pred > 0) {
      m.step_ms += meas - pred;
      ++step_n;
    }
  }
  if (gpu_n > 0) m.log_gpu /= gpu_n;
  if (step_n > 0) m.step_ms /= step_n;
  return m;
}

}  // namespace

sim::EngineConfig kernel_informed_start(const sim::EngineConfig& start, const std::vector<const MeasuredStage*>& stages,
                                        const StageReplay& replay, int rounds) {
  const bool any = std::any_of(stages.begin(), stages.end(), [](const MeasuredStage* s) { return s->measured.gpu_ms_per_token > 0; });
  if (!any) return start;
  sim::EngineConfig c = start;
  for (int round = 0; round < rounds; ++round) {
    const Moves m = moves_at(c, stages, replay);
    // Predicted GPU time too long: the modelled bytes move too slowly (decode, the bulk of a
    // staircase's GPU time, streams the weights); the search then splits it with the math.
    c.hardware.cost.bandwidth_efficiency *= std::exp(m.log_gpu);
    // What the GPU time leaves of a decode step is host time.
    c.hardware.cost.step_overhead_us += m.step_ms * 1e3;
    for (const std::string_view name : {"bandwidth_efficiency", "step_overhead_us"})
      clamp_to_table(c, name);
  }
  return c;
}

}  // namespace sb::predict
