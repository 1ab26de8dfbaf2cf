// calibrate recovers hidden cost parameters: the "measured" staircase is played by predict's own
// machinery with perturbed CostParams (no noise), then fitted from the presets' defaults. The
// stages are chosen so that each fitted parameter shows: long prompts make prefill compute-bound
// (compute_efficiency in TTFT), decode at one and at many sequences reads the weights once with
// little and with much KV cache (bandwidth_efficiency and step_overhead_us apart in TPOT).
#include "predict/calibrate.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "predict/fit_params.hpp"
#include "predict/nelder_mead.hpp"
#include "sim/presets.hpp"

namespace sb::predict {
namespace {

sim::EngineConfig preset_engine() {
  sim::EngineConfig c;
  c.hardware.model = *sim::find_model_preset("llama-3-8b");
  c.hardware.gpu = *sim::find_gpu_preset("h100");
  c.hardware.cost = c.hardware.gpu.cost;  // the preset's own cost set, as resolve_engine_config takes it
  return c;
}

// Deterministic spread of lengths around (prompt, output), as a real dataset has.
PlayedStage measured_workload(std::optional<int> concurrency, double rate, int n, int prompt, int output) {
  PlayedStage s;
  s.max_concurrency = concurrency;
  for (int i = 0; i < n; ++i) {
    const Nanos at = rate > 0 ? static_cast<Nanos>(1e9 * i / rate) : 0;
    s.requests.push_back({prompt + (i * 37) % 256, output + (i * 13) % 32, at, true, static_cast<std::uint64_t>(i)});
  }
  return s;
}

MeasuredStage measure(const sim::EngineConfig& hidden, int index, double load, PlayedStage replay) {
  const PlayedOutput out = play_stage(hidden, replay);
  MeasuredStage m;
  m.stage_index = index;
  m.load_value = load;
  m.replay = std::move(replay);
  m.measured = stage_metrics(out.records, out.end_ns);
  return m;
}

TEST(Calibrate, RecoversPerturbedParametersAndPredictsTheHeldOutStage) {
  sim::EngineConfig hidden = preset_engine();
  hidden.hardware.cost.compute_efficiency = 0.38;    // h100 preset 0.5
  hidden.hardware.cost.bandwidth_efficiency = 0.66;  // h100 preset 0.8
  hidden.hardware.cost.step_overhead_us = 1050;      // h100 preset 800
  CalibrateConfig cfg;
  cfg.start = preset_engine();
  cfg.stages.push_back(measure(hidden, 0, 1, measured_workload(1, 0, 6, 1024, 48)));
  cfg.stages.push_back(measure(hidden, 1, 8, measured_workload(8, 0, 24, 1024, 48)));
  cfg.stages.push_back(measure(hidden, 2, 48, measured_workload(48, 0, 96, 1024, 48)));
  cfg.stages.push_back(measure(hidden, 3, 20, measured_workload(std::nullopt, 20, 60, 1024, 48)));  // held out
  cfg.holdout = default_holdout(cfg.stages);
  ASSERT_EQ(cfg.holdout, std::vector<int>{3});
  const CalibrateResult r = calibrate(cfg);
  ASSERT_EQ(r.params.size(), 3u);  // TP 1: the all-reduce latency has no effect and is not fitted
  for (const FittedParam& p : r.params) {
    const FitParam* row = nullptr;
    for (const FitParam& f : fit_params())
      if (f.name == p.name) row = &f;
    ASSERT_NE(row, nullptr) << p.name;
    const double want = row->get(hidden);
    EXPECT_NEAR(p.fitted / want, 1.0, 0.05) << p.name << " fitted " << p.fitted << ", hidden " << want;
    EXPECT_FALSE(p.at_bound) << p.name;
  }
  EXPECT_GT(r.evaluations, 3 * 10);  // it searched, and stopped within its budget
  EXPECT_LE(r.evaluations, cfg.max_evaluations);
  EXPECT_LT(r.objective, 1e-4);
  ASSERT_EQ(r.stages.size(), 4u);
  const StageFit& held = r.stages.back();
  EXPECT_TRUE(held.held_out);
  EXPECT_NEAR(relative_error(held.predicted.output_throughput, held.measured.output_throughput), 0, 0.05);
  EXPECT_NEAR(relative_error(held.predicted.ttft_p50_ms, held.measured.ttft_p50_ms), 0, 0.10);
  // The defaults themselves are far off on that stage: the fit is what brings it in.
  const PlayedOutput before = play_stage(cfg.start, cfg.stages.back().replay);
  const StageMetrics b = stage_metrics(before.records, before.end_ns);
  EXPECT_GT(std::abs(relative_error(b.ttft_p50_ms, held.measured.ttft_p50_ms)), 0.15);
}

TEST(Calibrate, EveryStageHeldOutIsRefused) {
  CalibrateConfig cfg;
  cfg.start = preset_engine();
  cfg.stages.push_back(measure(cfg.start, 0, 1, measured_workload(1, 0, 2, 128, 8)));
  cfg.holdout = {0};
  EXPECT_THROW(calibrate(cfg), UserError);
}

TEST(Calibrate, TensorParallelFitsTheAllReduceToo) {
  sim::EngineConfig c = preset_engine();
  c.hardware.tensor_parallel = 2;
  EXPECT_EQ(fitted_params(c).size(), fit_params().size());
  c.hardware.tensor_parallel = 1;
  // allreduce_latency_us and link_efficiency only matter with TP > 1.
  EXPECT_EQ(fitted_params(c).size(), fit_params().size() - 2);
}

TEST(NelderMead, FindsTheMinimumOfRosenbrock) {
  // Known answer: (1, 1), f = 0.
  const auto rosenbrock = [](const std::vector<double>& x) {
    return 100 * std::pow(x[1] - x[0] * x[0], 2) + std::pow(1 - x[0], 2);
  };
  MinimizeOptions opt;
  opt.initial_step = {0.5, 0.5};
  opt.max_evaluations = 4000;
  opt.f_tolerance = 1e-16;
  const Minimum m = minimize(rosenbrock, {-1.2, 1.0}, opt);
  EXPECT_NEAR(m.x[0], 1.0, 1e-3);
  EXPECT_NEAR(m.x[1], 1.0, 1e-3);
  EXPECT_LT(m.f, 1e-6);
  EXPECT_LE(m.evaluations, 4000);
}

}  // namespace
}  // namespace sb::predict
