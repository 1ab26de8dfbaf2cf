#pragma once
// The tunable numbers of the simulator's cost model (sim/cost_model.hpp): what a GPU and its
// software stack achieve of the data sheet, and the host's share of every step. Each GPU preset
// carries its own set (sim/presets.cpp: AMD parts do not reach NVIDIA's fractions); every field is
// settable from `--engine-config` ([cost] table) and from flags (one row each in sim/engine_knobs.cpp).
// The member defaults are the H100 preset's, for code that builds a HardwareSetup by hand.
#include <optional>

namespace sb::sim {

struct CostParams {
  // Achieved fraction of the dense peak on large, compute-bound GEMMs (prefill MFU).
  double compute_efficiency = 0.6;
  // Achieved fraction of peak HBM bandwidth when streaming weights and KV at TP 1 (the weights a
  // step reads: an untied embedding table is not among them).
  double bandwidth_efficiency = 0.80;
  // n of the smooth roofline (computeⁿ + memoryⁿ)^(1/n): how imperfectly the two overlap near the
  // ridge, where GEMM tiles are neither weight-load- nor math-limited. Large n → max(compute, memory).
  double roofline_sharpness = 2;
  // Host time per engine step: the fixed part (scheduler, input prep, launch) ...
  double step_overhead_us = 800;
  // ... and the part that grows with the sequences in the step (sampling, detokenising, outputs).
  double seq_overhead_us = 60;
  // Fixed cost of one tensor-parallel all-reduce (launch + synchronisation), TP > 1 only.
  double allreduce_latency_us = 12;
  // Achieved fraction of the per-GPU link bandwidth in an all-reduce.
  double link_efficiency = 0.7;
  // Per-GPU weight-streaming efficiency falls as shards shrink: at TP it is
  // bandwidth_efficiency / (1 + tp_bandwidth_falloff · (TP − 1)).
  double tp_bandwidth_falloff = 0.15;
  // GPU memory kept out of the KV cache besides the weights, GiB. Unset: derived from the model
  // and the engine's token and sequence limits as vLLM's start-up profiling finds it
  // (sim/activation_reserve.hpp); set, it replaces that.
  std::optional<double> activation_reserve_gib = std::nullopt;
};

}  // namespace sb::sim
