#pragma once
// Public model architectures and GPU data-sheet numbers the cost model starts from, and per GPU the
// achieved fractions of them (sim/cost_params.hpp) that published vLLM runs show. Every number is
// overridable (flags / TOML, the knob table sim/engine_knobs.cpp); presets only give realistic defaults.
#include <span>
#include <string>
#include <string_view>

#include "sim/cost_params.hpp"

namespace sb::sim {

struct ModelPreset {
  std::string name;
  double params = 0;  // parameter count (weights), e.g. 8.03e9
  int num_layers = 0;
  int hidden_size = 0;
  int num_heads = 0;     // query heads
  int num_kv_heads = 0;  // grouped-query attention KV heads
  int head_dim = 0;
  int intermediate_size = 0;  // MLP width (gate/up projections)
  int vocab_size = 0;
  double dtype_bytes = 2;           // bf16 weights and KV cache
  int default_tensor_parallel = 1;  // smallest TP that fits the weights on an 80 GB GPU
  int max_model_len = 8192;
  // The lm_head is the embedding table (HF tie_word_embeddings): the table is streamed once a step,
  // for the lm_head. Untied, a step reads only the embedding rows of its tokens.
  bool tied_embeddings = false;
};

struct GpuPreset {
  std::string name;
  std::string device_name;        // as profilers print it (nsys Device column, rocprof agent)
  bool amd = false;               // selects ROCm kernel names in traces
  double peak_tflops = 0;         // dense bf16 tensor throughput, data sheet
  double mem_bandwidth_gbs = 0;   // HBM/GDDR bandwidth, GB/s (1e9)
  double mem_gib = 0;             // usable device memory, GiB
  double link_bandwidth_gbs = 0;  // per-GPU interconnect for tensor-parallel all-reduce, GB/s
  CostParams cost;                // what this GPU and its software stack achieve (sources in docs/simulator.md)
};

std::span<const ModelPreset> model_presets();
std::span<const GpuPreset> gpu_presets();

// nullptr when unknown (the caller reports the flag and the valid names).
const ModelPreset* find_model_preset(std::string_view name);
const GpuPreset* find_gpu_preset(std::string_view name);

// Human-readable table for `servebench sim --list-presets`.
std::string format_presets();

}  // namespace sb::sim
