#pragma once
// `servebench calibrate`'s terminal output: the fitted parameters (start → fitted), then per stage
// the measured and predicted output throughput, TTFT p50 and TPOT p50 with their errors, fitted
// and held-out stages apart, and the worst held-out errors in one line. With kernel targets
// (calibrate --kernels) each row also has the median step period and the GPU busy time per output
// token, measured (the trace) and predicted with the fitted parameters: what such a stage is fitted to.
#include <string>
#include <vector>

#include "load/staircase.hpp"

namespace sb::report {

struct CalibratedParam {
  std::string name;
  double start = 0, fitted = 0;
  bool at_bound = false;
};

struct CalibratedStage {
  double load_value = 0;
  bool held_out = false;
  double measured_tps = 0, predicted_tps = 0;
  double measured_ttft_ms = 0, predicted_ttft_ms = 0;
  double measured_tpot_ms = 0, predicted_tpot_ms = 0;
  double measured_gpu_ms_per_token = 0, predicted_gpu_ms_per_token = 0;  // 0: no kernel target
  double measured_step_ms = 0, predicted_step_ms = 0;  // median step period (the trace's): 0 when unknown
};

std::string format_calibration(LoadMode mode, const std::vector<CalibratedParam>& params,
                               const std::vector<CalibratedStage>& stages, int evaluations);

}  // namespace sb::report
