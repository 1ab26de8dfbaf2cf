// CPU cost of the simulator engine, so the HTTP front end's budget (5,000 streams, 100k tokens/s on
// one core) is not eaten by the model. Run: build with -DSB_BUILD_BENCH=ON, then
//   ./sim_engine_bench --benchmark_counters_tabular=true
// items_per_second = simulated tokens produced per CPU second.
#include <benchmark/benchmark.h>

#include <vector>

#include "sim/engine.hpp"
#include "sim/engine_backend.hpp"
#include "sim/kernel_trace.hpp"
#include "sim/presets.hpp"
#include "sim/prom_render.hpp"
#include "sim/virtual_clock.hpp"

namespace {

sb::sim::EngineConfig config_for(int max_num_seqs) {
  sb::sim::EngineConfig c;
  c.hardware.model = *sb::sim::find_model_preset("llama-3.2-1b");
  c.hardware.gpu = *sb::sim::find_gpu_preset("h200");
  c.hardware.cost = c.hardware.gpu.cost;
  c.scheduler.max_num_seqs = max_num_seqs;
  c.scheduler.max_num_batched_tokens = 1 << 16;
  return c;
}

// Whole closed-loop runs in virtual time: `concurrency` streams, 2 requests each of 128 tokens.
// Covers submit, scheduling, KV accounting, cost model, events and the stats histograms.
void BM_ClosedLoop(benchmark::State& state) {
  const int concurrency = static_cast<int>(state.range(0));
  std::int64_t tokens = 0;
  for (auto _ : state) {
    sb::sim::EngineBackend backend(config_for(concurrency), {});
    const auto run = sb::sim::run_closed_loop(backend, {concurrency, 2 * concurrency, 64, 128, true});
    tokens += static_cast<std::int64_t>(run.itl_s.size() + run.requests.size());
  }
  state.SetItemsProcessed(tokens);
}
BENCHMARK(BM_ClosedLoop)->Arg(64)->Arg(256)->Arg(1024)->Arg(5000)->Unit(benchmark::kMillisecond);

void BM_RenderMetrics(benchmark::State& state) {
  sb::sim::EngineBackend backend(config_for(256), {});
  sb::sim::run_closed_loop(backend, {64, 256, 64, 64, true});
  std::string out;
  for (auto _ : state) {
    out.clear();
    backend.render_metrics(out, "llama-3.2-1b");
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(out.size()));
}
BENCHMARK(BM_RenderMetrics);

// Kernel-trace cost per step while profiling (plan + rocprofv3 rows for a 16-layer model).
void BM_KernelTraceStep(benchmark::State& state) {
  const sb::sim::CostModel model(config_for(256).hardware);
  sb::sim::StepShape shape;
  shape.decode_tokens = 256;
  shape.sampled_tokens = 256;
  shape.kv_tokens_read = 256 * 1000;
  shape.attention_pairs = 256 * 1001.0;
  const sb::sim::StepCost cost = model.step_cost(shape);
  sb::sim::KernelTraceFormatter formatter(sb::sim::TraceFormat::rocprofv3, {"AMD Instinct MI300X", true, 1}, 0);
  std::vector<sb::sim::KernelEvent> kernels;
  std::string rows;
  for (auto _ : state) {
    kernels.clear();
    rows.clear();
    sb::sim::plan_step_kernels(model, shape, cost, {0, cost.total_ns(), 1.0}, kernels);
    formatter.append_rows(kernels, rows);
    benchmark::DoNotOptimize(rows.data());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(kernels.size()));
}
BENCHMARK(BM_KernelTraceStep);

}  // namespace

BENCHMARK_MAIN();
