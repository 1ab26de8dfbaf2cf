#include "predict/calibrate.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "predict/fit_params.hpp"
#include "predict/kernel_start.hpp"
#include "predict/kernel_targets.hpp"
#include "predict/nelder_mead.hpp"

namespace sb::predict {
namespace {

StageMetrics replay(const sim::EngineConfig& config, const MeasuredStage& stage) {
  const PlayedOutput out = play_stage(config, stage.replay);
  StageMetrics m = stage_metrics(out.records, out.end_ns);
  if (stage.measured.gpu_ms_per_token > 0) {
    double tokens = 0;
    for (const RequestRecord& r : out.records) tokens += r.ok() ? r.output_tokens : 0;
    m.gpu_ms_per_token = gpu_ms_per_token(out.gpu_busy_s, tokens);
    m.step_p50_ms = out.step_period_p50_ms;
  }
  return m;
}

// ln(pred/meas)², symmetric in over- and under-prediction; a metric the stage lacks adds nothing.
double log_error2(double predicted, double measured) {
  if (!(measured > 0)) return 0.0;
  if (!(predicted > 0)) return 1e6;
  const double e = std::log(predicted / measured);
  return e * e;
}

// A stage with a kernel target (calibrate --kernels) is fitted on its GPU time per token (the
// efficiencies: the bytes and the math) and its step time, the trace's median step period (what
// the GPU time leaves of it is the step overhead). Its TTFT, TPOT and throughput are predicted,
// not fitted: they carry the host time per request the engine does not model (a first token
// delivered late shortens TPOT) and which step a request happened to join, a whole prefill either
// way, which would pull the parameters off the GPU's own numbers (docs/predict.md).
// The step time of a decode: the trace's median step period, or TPOT where the trace shows no steps.
double step_time_error2(const StageMetrics& p, const StageMetrics& m) {
  return m.step_p50_ms > 0 ? log_error2(p.step_p50_ms, m.step_p50_ms) : log_error2(p.tpot_p50_ms, m.tpot_p50_ms);
}

double stage_error(const StageMetrics& p, const StageMetrics& m) {
  if (m.gpu_ms_per_token > 0) return log_error2(p.gpu_ms_per_token, m.gpu_ms_per_token) + step_time_error2(p, m);
  return log_error2(p.output_throughput, m.output_throughput) + log_error2(p.ttft_p50_ms, m.ttft_p50_ms) +
         log_error2(p.tpot_p50_ms, m.tpot_p50_ms);
}

// Log-space coordinates <-> the configuration, clamped into the table's bounds.
class Space {
 public:
  explicit Space(const sim::EngineConfig& start) : start_(start), params_(fitted_params(start)) {}

  std::vector<double> origin() const {
    std::vector<double> x;
    for (const FitParam* p : params_) x.push_back(std::log(std::clamp(p->get(start_), p->lower, p->upper)));
    return x;
  }
  sim::EngineConfig at(const std::vector<double>& x) const {
    sim::EngineConfig c = start_;
    for (std::size_t i = 0; i < params_.size(); ++i)
      params_[i]->set(c, std::clamp(std::exp(x[i]), params_[i]->lower, params_[i]->upper));
    return c;
  }
  const std::vector<const FitParam*>& params() const { return params_; }

 private:
  sim::EngineConfig start_;
  std::vector<const FitParam*> params_;
};

bool held_out(const CalibrateConfig& cfg, int stage_index) {
  return std::find(cfg.holdout.begin(), cfg.holdout.end(), stage_index) != cfg.holdout.end();
}

}  // namespace

double relative_error(double predicted, double measured) {
  if (measured == 0) return predicted == 0 ? 0.0 : HUGE_VAL;
  return predicted / measured - 1.0;
}

std::vector<int> default_holdout(const std::vector<MeasuredStage>& stages) {
  if (stages.size() < 3) return {};
  return {stages.back().stage_index};
}

CalibrateResult calibrate(const CalibrateConfig& cfg) {
  std::vector<const MeasuredStage*> fit_stages;
  for (const MeasuredStage& s : cfg.stages)
    if (!held_out(cfg, s.stage_index)) fit_stages.push_back(&s);
  if (fit_stages.empty()) throw UserError("calibrate: no stage left to fit (every stage is held out)");
  sim::Engine probe(cfg.start);  // a configuration that cannot run fails here, with its reason
  // With kernel targets the search starts where GPU time and TPOT already match (kernel_start.hpp),
  // in a smaller first simplex: the presets' ±30 % is the scale of their errors, not of this point's.
  const sim::EngineConfig origin = kernel_informed_start(cfg.start, fit_stages, replay);
  const bool kernels = std::any_of(fit_stages.begin(), fit_stages.end(),
                                   [](const MeasuredStage* s) { return s->measured.gpu_ms_per_token > 0; });
  const Space space(origin);
  CalibrateResult result;
  const auto objective = [&](const std::vector<double>& x) {
    const sim::EngineConfig c = space.at(x);
    double sum = 0;
    for (const MeasuredStage* s : fit_stages) sum += stage_error(replay(c, *s), s->measured);
    return sum / static_cast<double>(fit_stages.size());
  };
  MinimizeOptions opt;
  // ln 1.3: the first simplex spans ±30 % around the presets, the scale of their known errors.
  opt.initial_step.assign(space.params().size(), std::log(kernels ? 1.1 : 1.3));
  opt.max_evaluations = cfg.max_evaluations;
  const Minimum m = minimize(objective, space.origin(), opt);
  result.fitted = space.at(m.x);
  result.objective = m.f;
  result.evaluations = m.evaluations;
  for (const FitParam* p : space.params()) {
    const double v = p->get(result.fitted);
    result.params.push_back({std::string(p->name), p->get(cfg.start), v,
                             v <= p->lower * 1.0001 || v >= p->upper * 0.9999});
  }
  for (const MeasuredStage& s : cfg.stages)
    result.stages.push_back({s.stage_index, s.load_value, held_out(cfg, s.stage_index), s.measured, replay(result.fitted, s)});
  return result;
}

}  // namespace sb::predict
