#include "report/calibrate_text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace sb::report {
namespace {

double pct_error(double predicted, double measured) {
  return measured != 0 ? (predicted / measured - 1.0) * 100.0 : 0.0;
}

// The kernel columns: "-" where the stage has no kernel target (no trace events inside it).
std::string kernel_cells(const CalibratedStage& s) {
  const std::string step = s.measured_step_ms > 0
                               ? fmt::format("  {:>7.2f} {:>7.2f} {:>+7.1f}%", s.measured_step_ms, s.predicted_step_ms,
                                             pct_error(s.predicted_step_ms, s.measured_step_ms))
                               : fmt::format("  {:>7} {:>7} {:>8}", "-", "-", "-");
  if (!(s.measured_gpu_ms_per_token > 0)) return step + fmt::format("  {:>8} {:>8} {:>8}", "-", "-", "-");
  return step + fmt::format("  {:>8.3f} {:>8.3f} {:>+7.1f}%", s.measured_gpu_ms_per_token, s.predicted_gpu_ms_per_token,
                           pct_error(s.predicted_gpu_ms_per_token, s.measured_gpu_ms_per_token));
}

std::string stage_row(LoadMode mode, const CalibratedStage& s, bool kernels) {
  const std::string load = mode == LoadMode::concurrency ? fmt::format("c={:g}", s.load_value)
                                                         : fmt::format("{:g} req/s", s.load_value);
  return fmt::format("{:<12} {:<9} {:>9.1f} {:>9.1f} {:>+7.1f}%  {:>8.1f} {:>8.1f} {:>+7.1f}%  {:>7.2f} {:>7.2f} {:>+7.1f}%{}\n",
                     load, s.held_out ? "held out" : "fitted", s.measured_tps, s.predicted_tps,
                     pct_error(s.predicted_tps, s.measured_tps), s.measured_ttft_ms, s.predicted_ttft_ms,
                     pct_error(s.predicted_ttft_ms, s.measured_ttft_ms), s.measured_tpot_ms, s.predicted_tpot_ms,
                     pct_error(s.predicted_tpot_ms, s.measured_tpot_ms), kernels ? kernel_cells(s) : "");
}

}  // namespace

std::string format_calibration(LoadMode mode, const std::vector<CalibratedParam>& params,
                               const std::vector<CalibratedStage>& stages, int evaluations) {
  std::string out = fmt::format("Fitted cost parameters ({} replays):\n", evaluations);
  for (const CalibratedParam& p : params)
    out += fmt::format("  {:<22} {:>10.4g} -> {:<10.4g}{}\n", p.name, p.start, p.fitted,
                       p.at_bound ? "  (at its bound: the data may want a value outside it)" : "");
  const bool kernels = std::any_of(stages.begin(), stages.end(), [](const CalibratedStage& s) { return s.measured_gpu_ms_per_token > 0; });
  out += fmt::format("\n{:<12} {:<9} {:>9} {:>9} {:>8}  {:>8} {:>8} {:>8}  {:>7} {:>7} {:>8}", "stage", "", "tok/s",
                     "pred", "error", "TTFT p50", "pred", "error", "TPOT", "pred", "error");
  out += kernels ? fmt::format("  {:>7} {:>7} {:>8}  {:>8} {:>8} {:>8}\n", "step", "pred", "error", "GPU/tok", "pred", "error") : "\n";
  for (const CalibratedStage& s : stages) out += stage_row(mode, s, kernels);
  if (kernels)
    out += "step: median ms from one step's start to the next; GPU/tok: GPU busy ms per output token, per GPU; both from "
           "the kernel traces of --kernels. A stage with them is fitted to them (TPOT where the trace shows no steps); "
           "its throughput, TTFT and TPOT are predictions\n";
  double tps = 0, ttft = 0, tpot = 0, gpu = 0;
  bool any = false;
  for (const CalibratedStage& s : stages) {
    if (!s.held_out) continue;
    any = true;
    tps = std::max(tps, std::abs(pct_error(s.predicted_tps, s.measured_tps)));
    ttft = std::max(ttft, std::abs(pct_error(s.predicted_ttft_ms, s.measured_ttft_ms)));
    tpot = std::max(tpot, std::abs(pct_error(s.predicted_tpot_ms, s.measured_tpot_ms)));
    if (s.measured_gpu_ms_per_token > 0)
      gpu = std::max(gpu, std::abs(pct_error(s.predicted_gpu_ms_per_token, s.measured_gpu_ms_per_token)));
  }
  if (any)
    out += fmt::format("\nHeld-out prediction error (worst stage): throughput {:.1f} %, TTFT p50 {:.1f} %, TPOT p50 {:.1f} %{}\n",
                       tps, ttft, tpot, kernels ? fmt::format(", GPU time per token {:.1f} %", gpu) : "");
  else
    out += "\nNo stage held out: the errors above are fit errors, not prediction errors\n";
  return out;
}

}  // namespace sb::report
