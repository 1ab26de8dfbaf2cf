#pragma once
// The three numbers calibrate compares per stage, computed from played records with the
// definitions metrics::summarize uses (vLLM's): output tokens over the stage's duration (start to
// last completion), the median TTFT, the median TPOT ((E2EL − TTFT) / (output − 1), requests with
// more than one token). The fit evaluates them hundreds of times, so they skip the full summary.
#include <vector>

#include "metrics/request_record.hpp"
#include "core/clock.hpp"

namespace sb::predict {

struct StageMetrics {
  double output_throughput = 0;  // tok/s
  double ttft_p50_ms = 0;
  double tpot_p50_ms = 0;        // 0 when no request had two tokens
  // Median period between consecutive engine steps (calibrate --kernels: measured from the
  // trace's per-step input copies, predicted from the replay's steps); 0: not measured.
  double step_p50_ms = 0;
  // GPU busy time per output token, per GPU (calibrate --kernels): measured from a kernel trace,
  // predicted from the engine's step costs; 0 when the stage has no kernel target.
  double gpu_ms_per_token = 0;
};

StageMetrics stage_metrics(const std::vector<RequestRecord>& records, Nanos duration_ns);

}  // namespace sb::predict
