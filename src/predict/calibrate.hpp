#pragma once
// `servebench calibrate`: fits the cost model's parameters (predict/fit_params.hpp) to a measured
// staircase by replaying each stage's actual requests through the engine in virtual time with
// candidate parameters. The objective (docs/predict.md) is the mean over the fitted stages of
//   ln²(pred/meas output throughput) + ln²(pred/meas TTFT p50) + ln²(pred/meas TPOT p50)
//   [+ ln²(pred/meas GPU ms per output token) for stages with a kernel target, --kernels],
// minimised by Nelder–Mead (predict/nelder_mead.hpp) over the logarithms of the parameters, kept
// inside their bounds. Held-out stages are not fitted; their errors say how well it predicts.
#include <cstddef>
#include <string>
#include <vector>

#include "predict/measured_run.hpp"
#include "sim/engine.hpp"

namespace sb::predict {

struct CalibrateConfig {
  sim::EngineConfig start;            // presets (+ the measured server's scheduler settings)
  std::vector<MeasuredStage> stages;  // in run order; measured.gpu_ms_per_token > 0: a kernel target
  std::vector<int> holdout;           // stage_index values left out of the fit
  int max_evaluations = 600;
};

struct StageFit {
  int stage_index = 0;
  double load_value = 0;
  bool held_out = false;
  StageMetrics measured, predicted;  // predicted with the fitted parameters
};

struct FittedParam {
  std::string name;  // the table's TOML key
  double start = 0, fitted = 0;
  bool at_bound = false;  // the search ended on a bound: the data may want a value outside it
};

struct CalibrateResult {
  sim::EngineConfig fitted;  // `start` with the fitted cost parameters
  std::vector<FittedParam> params;
  std::vector<StageFit> stages;
  double objective = 0;      // at the fitted point, over the fitted stages
  int evaluations = 0;       // replays of the fitted stages
};

// The default hold-out: the last stage, when there are at least 3 (fewer leave too little to fit).
std::vector<int> default_holdout(const std::vector<MeasuredStage>& stages);

// Throws sb::UserError when no stage is left to fit or the starting configuration cannot run.
CalibrateResult calibrate(const CalibrateConfig& cfg);

// Relative error pred/meas − 1 (0 when both are 0; +inf when only meas is 0).
double relative_error(double predicted, double measured);

}  // namespace sb::predict
