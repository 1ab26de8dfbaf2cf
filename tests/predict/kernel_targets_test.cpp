// calibrate --kernels, sans-I/O: synthetic kernel events aligned with stage windows by the trace
// layer's own code (trace::align_to_stages) become per-stage GPU-time targets with known answers,
// and a fit with those targets recovers the two parameters a staircase alone cannot tell apart.
#include "predict/kernel_targets.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "core/error.hpp"
#include "predict/calibrate.hpp"
#include "predict/fit_params.hpp"
#include "sim/presets.hpp"

namespace sb::predict {
namespace {

trace::StageWindow kt_window(int index, double load, std::int64_t start_ns, std::int64_t end_ns) {
  trace::StageWindow w;
  w.stage_index = index;
  w.load_value = load;
  w.load_label = "c=" + std::to_string(static_cast<int>(load));
  w.start_unix_ns = start_ns;
  w.end_unix_ns = end_ns;
  return w;
}

// `count` kernels of `each_ns` on `device`, one every `every_ns` from `from_ns`.
void kt_add_kernels(trace::KernelTrace& t, int device, std::int64_t from_ns, int count, std::int64_t each_ns,
                    std::int64_t every_ns) {
  for (int i = 0; i < count; ++i) {
    trace::KernelEvent e;
    e.name = "nvjet_tst_128x256_64x4_2x1_v_bz_coopA_TNT";
    e.start_ns = from_ns + i * every_ns;
    e.end_ns = e.start_ns + each_ns;
    e.device = device;
    t.events.push_back(e);
  }
}

MeasuredStage kt_stage(int index, double load, int requests, int output_tokens) {
  MeasuredStage s;
  s.stage_index = index;
  s.load_value = load;
  for (int i = 0; i < requests; ++i) s.replay.requests.push_back({128, output_tokens, 0, true, static_cast<std::uint64_t>(i)});
  return s;
}

TEST(KernelTargets, BusyTimePerOutputTokenHasKnownAnswers) {
  // Stage 0: 1 s on the wall clock, 400 kernels of 1 ms = 0.4 s busy, 10 requests x 20 tokens:
  // 2 ms per token. Stage 1: 2 s, 500 kernels of 2 ms = 1 s busy, 250 tokens: 4 ms per token.
  // Events between the stages belong to neither.
  const std::vector<trace::StageWindow> windows = {kt_window(0, 1, 0, 1'000'000'000),
                                                   kt_window(1, 4, 1'500'000'000, 3'500'000'000)};
  trace::KernelTrace t;
  kt_add_kernels(t, 0, 0, 400, 1'000'000, 2'000'000);
  kt_add_kernels(t, 0, 1'100'000'000, 50, 1'000'000, 2'000'000);  // between the stages
  kt_add_kernels(t, 0, 1'500'000'000, 500, 2'000'000, 4'000'000);
  const trace::Alignment a = trace::align_to_stages(t, windows, 0, trace::GroupBy::category);
  EXPECT_EQ(a.outside_events, 50);
  std::vector<MeasuredStage> stages = {kt_stage(0, 1, 10, 20), kt_stage(1, 4, 25, 10)};

  const std::vector<KernelTarget> k = kernel_targets({a}, stages, 1, 1);
  ASSERT_EQ(k.size(), 2u);
  EXPECT_EQ(k[0].events, 400);
  EXPECT_EQ(k[0].devices, 1);
  EXPECT_NEAR(k[0].busy_s_per_device, 0.4, 1e-9);
  EXPECT_NEAR(k[0].gpu_ms_per_token, 2.0, 1e-9);
  EXPECT_NEAR(k[1].gpu_ms_per_token, 4.0, 1e-9);
  // A sweep of a sim at --time-scale 2 is in modelled time, its trace's spans on the wall clock.
  EXPECT_NEAR(kernel_targets({a}, stages, 2, 1)[1].gpu_ms_per_token, 8.0, 1e-9);

  apply_kernel_targets(k, stages);
  EXPECT_NEAR(stages[0].measured.gpu_ms_per_token, 2.0, 1e-9);
  EXPECT_NEAR(stages[1].measured.gpu_ms_per_token, 4.0, 1e-9);
}

TEST(KernelTargets, TensorParallelRanksAverageAndExtraDevicesAreRefused) {
  const std::vector<trace::StageWindow> windows = {kt_window(0, 1, 0, 1'000'000'000)};
  // Two ranks' traces (one device each): 0.2 s and 0.4 s busy, 100 tokens -> 3 ms per token per GPU.
  trace::KernelTrace r0, r1;
  kt_add_kernels(r0, 0, 0, 200, 1'000'000, 2'000'000);
  kt_add_kernels(r1, 1, 0, 400, 1'000'000, 2'000'000);
  const trace::Alignment a0 = trace::align_to_stages(r0, windows, 0, trace::GroupBy::category);
  const trace::Alignment a1 = trace::align_to_stages(r1, windows, 0, trace::GroupBy::category);
  const std::vector<MeasuredStage> stages = {kt_stage(0, 1, 10, 10)};
  const std::vector<KernelTarget> k = kernel_targets({a0, a1}, stages, 1, 2);
  ASSERT_EQ(k.size(), 1u);
  EXPECT_EQ(k[0].devices, 2);
  EXPECT_NEAR(k[0].gpu_ms_per_token, 3.0, 1e-9);
  // One rank of a TP 2 server is a sample of it; two devices for a TP 1 server are another server.
  EXPECT_NEAR(kernel_targets({a1}, stages, 1, 2)[0].gpu_ms_per_token, 4.0, 1e-9);
  EXPECT_THROW(kernel_targets({a0, a1}, stages, 1, 1), UserError);
}

TEST(KernelTargets, StageWithoutEventsGetsNoTarget) {
  const std::vector<trace::StageWindow> windows = {kt_window(0, 1, 0, 1'000'000'000),
                                                   kt_window(1, 4, 2'000'000'000, 3'000'000'000)};
  trace::KernelTrace t;
  kt_add_kernels(t, 0, 2'000'000'000, 10, 1'000'000, 2'000'000);
  const trace::Alignment a = trace::align_to_stages(t, windows, 0, trace::GroupBy::category);
  std::vector<MeasuredStage> stages = {kt_stage(0, 1, 1, 10), kt_stage(1, 4, 1, 10)};
  const std::vector<KernelTarget> k = kernel_targets({a}, stages, 1, 1);
  ASSERT_EQ(k.size(), 1u);
  EXPECT_EQ(k[0].stage_index, 1);
  apply_kernel_targets(k, stages);
  EXPECT_EQ(stages[0].measured.gpu_ms_per_token, 0);
  EXPECT_NEAR(stages[1].measured.gpu_ms_per_token, 1.0, 1e-9);
}

TEST(KernelTargets, StepPeriodIsTheMedianGapBetweenInputCopies) {
  // Copies every 8 ms on device 0 (one 30 ms gap: a prefill), every 5 ms on device 1 (ignored:
  // the lowest device is the one read), kernels in between (not steps).
  const std::vector<trace::StageWindow> windows = {kt_window(0, 1, 0, 1'000'000'000)};
  trace::KernelTrace t;
  std::int64_t at = 1'000'000;
  for (int i = 0; i < 10; ++i) {
    trace::KernelEvent copy;
    copy.name = "[CUDA memcpy Host-to-Device]";
    copy.kind = trace::OpKind::memcpy;
    copy.start_ns = at;
    copy.end_ns = at + 1000;
    t.events.push_back(copy);
    copy.device = 1;
    copy.start_ns = 500'000'000 + i * 5'000'000;
    copy.end_ns = copy.start_ns + 1000;
    t.events.push_back(copy);
    at += i == 4 ? 30'000'000 : 8'000'000;
  }
  kt_add_kernels(t, 0, 2'000'000, 20, 100'000, 3'000'000);
  const std::vector<StepPeriod> p = step_periods(t, 0, windows);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].periods, 9);
  EXPECT_NEAR(p[0].median_ms, 8.0, 1e-9);
  // Offsets move the events against the windows: 2 s later, nothing is inside.
  EXPECT_TRUE(step_periods(t, 2'000'000'000, windows).empty());
  std::vector<MeasuredStage> stages = {kt_stage(0, 1, 1, 10)};
  apply_step_periods(p, 2, stages);  // a sim at --time-scale 2: modelled = wall x 2
  EXPECT_NEAR(stages[0].measured.step_p50_ms, 16.0, 1e-9);
}

sim::EngineConfig kt_preset_engine() {
  sim::EngineConfig c;
  c.hardware.model = *sim::find_model_preset("llama-3-8b");
  c.hardware.gpu = *sim::find_gpu_preset("h100");
  c.hardware.cost = c.hardware.gpu.cost;
  return c;
}

PlayedStage kt_closed_loop(int concurrency, int n, int prompt, int output) {
  PlayedStage s;
  s.max_concurrency = concurrency;
  for (int i = 0; i < n; ++i) s.requests.push_back({prompt + (i * 37) % 256, output + (i * 13) % 16, 0, true, static_cast<std::uint64_t>(i)});
  return s;
}

// The "measured" run: each stage played with the hidden parameters; its kernel trace is one event
// per 1 ms slice of the engine's busy time, laid end to end from the stage's start, so the trace
// layer's alignment (not a shortcut) turns it back into the target.
struct KtMeasured {
  std::vector<MeasuredStage> stages;
  std::vector<trace::StageWindow> windows;
  trace::KernelTrace trace;
};

KtMeasured kt_measure(const sim::EngineConfig& hidden, const std::vector<std::pair<int, PlayedStage>>& plan) {
  KtMeasured m;
  std::int64_t at_ns = 0;
  for (std::size_t i = 0; i < plan.size(); ++i) {
    const PlayedOutput out = play_stage(hidden, plan[i].second);
    MeasuredStage s;
    s.stage_index = static_cast<int>(i);
    s.load_value = plan[i].first;
    s.replay = plan[i].second;
    s.measured = stage_metrics(out.records, out.end_ns);
    m.stages.push_back(std::move(s));
    m.windows.push_back(kt_window(static_cast<int>(i), plan[i].first, at_ns, at_ns + out.end_ns));
    const auto busy_ns = static_cast<std::int64_t>(std::llround(out.gpu_busy_s * 1e9));
    const std::int64_t slices = busy_ns / 1'000'000;
    kt_add_kernels(m.trace, 0, at_ns, static_cast<int>(slices), 1'000'000, 1'000'000);
    kt_add_kernels(m.trace, 0, at_ns + slices * 1'000'000, 1, busy_ns - slices * 1'000'000, 1);
    at_ns += out.end_ns + 1'000'000'000;  // idle between stages
  }
  return m;
}

double kt_fitted(const CalibrateResult& r, const char* name) {
  for (const FittedParam& p : r.params)
    if (p.name == name) return p.fitted;
  return NAN;
}

TEST(KernelTargets, CalibrateWithKernelTimesSeparatesBandwidthFromStepOverhead) {
  sim::EngineConfig hidden = kt_preset_engine();
  hidden.hardware.cost.compute_efficiency = 0.45;
  hidden.hardware.cost.bandwidth_efficiency = 0.68;  // h100 preset 0.85
  hidden.hardware.cost.step_overhead_us = 1150;      // h100 preset 800
  // Short decode-heavy stages at small batches: the KV cache read is a few % of the weights, so
  // TPOT sees weights / bandwidth + overhead, one sum.
  KtMeasured m = kt_measure(hidden, {{1, kt_closed_loop(1, 4, 512, 64)},
                                     {4, kt_closed_loop(4, 12, 512, 64)},
                                     {8, kt_closed_loop(8, 16, 512, 64)}});
  // One percent of measurement noise in TPOT, as a real run has (docs/predict.md): enough to
  // move a fit without kernel times along its valley of equal predictions.
  m.stages[0].measured.tpot_p50_ms *= 1.01;
  m.stages[2].measured.tpot_p50_ms *= 0.99;
  CalibrateConfig base;
  base.start = kt_preset_engine();
  base.stages = m.stages;
  base.holdout = {};
  const CalibrateResult without = calibrate(base);

  const trace::Alignment a = trace::align_to_stages(m.trace, m.windows, 0, trace::GroupBy::category);
  EXPECT_EQ(a.outside_events, 0);
  CalibrateConfig with = base;
  apply_kernel_targets(kernel_targets({a}, with.stages, 1, 1), with.stages);
  for (const MeasuredStage& s : with.stages) EXPECT_GT(s.measured.gpu_ms_per_token, 0) << s.stage_index;
  const CalibrateResult fit = calibrate(with);
  EXPECT_NEAR(kt_fitted(fit, "bandwidth_efficiency") / 0.68, 1.0, 0.05);
  EXPECT_NEAR(kt_fitted(fit, "step_overhead_us") / 1150, 1.0, 0.05);
  EXPECT_NEAR(kt_fitted(fit, "compute_efficiency") / 0.45, 1.0, 0.05);
  // The same noise leaves the sweep-only fit more than 5 % off in the overhead (8 % here).
  EXPECT_GT(std::abs(kt_fitted(without, "step_overhead_us") / 1150 - 1), 0.05);
  for (const StageFit& s : fit.stages)
    EXPECT_NEAR(relative_error(s.predicted.gpu_ms_per_token, s.measured.gpu_ms_per_token), 0, 0.01) << s.stage_index;
  std::printf("without kernel targets: bandwidth %.4f overhead %.1f compute %.4f; with: %.4f %.1f %.4f\n",
              kt_fitted(without, "bandwidth_efficiency"), kt_fitted(without, "step_overhead_us"),
              kt_fitted(without, "compute_efficiency"), kt_fitted(fit, "bandwidth_efficiency"),
              kt_fitted(fit, "step_overhead_us"), kt_fitted(fit, "compute_efficiency"));
}

}  // namespace
}  // namespace sb::predict
