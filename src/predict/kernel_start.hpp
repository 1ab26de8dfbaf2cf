#pragma once
// Where calibrate's search starts when stages have kernel targets (calibrate --kernels): each
// parameter moved toward the measurement it governs, a few rounds of
//   bandwidth_efficiency × exp(mean ln(pred/meas GPU ms per token))  decode's GPU time is the bytes'
//   step_overhead_us     + mean(meas − pred median step period)      the rest of a decode step
// A staircase's objective is rough (a request joins one step or the next as parameters move) and
// has a long valley where bandwidth and overhead trade; from the presets Nelder–Mead may stop in
// it. From this point, whose GPU time and step time already match, it only polishes.
#include <functional>
#include <vector>

#include "predict/measured_run.hpp"
#include "sim/engine.hpp"

namespace sb::predict {

using StageReplay = std::function<StageMetrics(const sim::EngineConfig&, const MeasuredStage&)>;

// `start` unchanged when no stage has a kernel target. Values stay inside the fit table's bounds.
sim::EngineConfig kernel_informed_start(const sim::EngineConfig& start, const std::vector<const MeasuredStage*>& stages,
                                        const StageReplay& replay, int rounds = 8);

}  // namespace sb::predict
