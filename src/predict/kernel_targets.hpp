#pragma once
// calibrate --kernels: the GPU's own time per stage, from kernel traces already placed on the run's
// clock and aligned with its stages (trace/align.hpp), as one more target of the fit. A step costs
// GPU time (the weights over the bandwidth, the math) plus host time (step overhead); TPOT alone
// sees their sum, the trace sees the GPU part alone, so the two together tell them apart
// (docs/predict.md "--kernels"). Sans-I/O: alignments in, numbers out.
#include <cstdint>
#include <vector>

#include "predict/measured_run.hpp"
#include "trace/align.hpp"

namespace sb::predict {

struct KernelTarget {
  int stage_index = 0;
  std::int64_t events = 0;      // kernel and copy events starting inside the stage, over every trace
  int devices = 0;              // devices of the traces that have events in the stage
  double busy_s_per_device = 0; // union of the devices' busy intervals in the stage, mean per device, wall clock
  double gpu_ms_per_token = 0;  // busy_s_per_device in the sweep's time frame, per output token
};

// One target per stage of `stages` that some trace has events in. `time_factor` is the sweep's
// environment.time_factor: a sweep of a `sim --time-scale K` is in the modelled GPU's time while
// its trace's spans are wall durations (modelled / K), so busy time is multiplied by it; stage
// windows stay on the wall clock either way. Output tokens are the stage's delivered ones (the
// replay's). Throws sb::UserError when the traces of one stage hold more devices than
// `tensor_parallel` (a trace of another server).
std::vector<KernelTarget> kernel_targets(const std::vector<trace::Alignment>& traces,
                                         const std::vector<MeasuredStage>& stages, double time_factor,
                                         int tensor_parallel);

// Sets measured.gpu_ms_per_token of each stage that has a target.
void apply_kernel_targets(const std::vector<KernelTarget>& targets, std::vector<MeasuredStage>& stages);

// The measured step time: each engine step begins with a host-to-device copy of its inputs (vLLM's
// and the simulator's traces), so the median period between consecutive copies that start inside
// a stage, on one device, is its typical (decode) step, host time included, stamped by the GPU's
// clock: unlike TPOT it does not move when the client receives a token late.
struct StepPeriod {
  int stage_index = 0;
  std::int64_t periods = 0;  // copy-to-copy intervals inside the stage
  double median_ms = 0;      // wall clock
};

// One per window with at least two copies on the lowest-numbered device that has any there.
// `unix_offset_ns`: Unix ns = trace ns + it (the trace's placement).
std::vector<StepPeriod> step_periods(const trace::KernelTrace& trace, std::int64_t unix_offset_ns,
                                     const std::vector<trace::StageWindow>& windows);

// Sets measured.step_p50_ms (× time_factor, as kernel_targets) of each stage that has a period and
// none yet (the first trace given wins).
void apply_step_periods(const std::vector<StepPeriod>& periods, double time_factor, std::vector<MeasuredStage>& stages);

// GPU busy time per output token in ms; 0 when no token was produced.
double gpu_ms_per_token(double busy_s, double output_tokens);

}  // namespace sb::predict
