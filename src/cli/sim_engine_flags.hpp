#pragma once
// Flags of the continuous-batching simulator (`servebench sim`, `servebench demo`) and the factory
// that turns them into an EngineBackend. Precedence: preset < --engine-config TOML file < flags.
// Unset optionals mean "keep the value from the layer below".
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "sim/backend.hpp"
#include "sim/engine.hpp"

namespace CLI {
class App;
}

namespace sb::cli {

struct EngineFlags {
  std::optional<std::string> model_preset;       // default llama-3-8b
  std::optional<std::string> gpu_preset;         // default h100
  std::optional<int> max_num_seqs;               // vLLM default 256
  std::optional<int> max_num_batched_tokens;     // default 8192
  std::optional<int> block_size;                 // default 16
  std::optional<double> gpu_memory_utilization;  // default 0.9
  std::optional<bool> enable_chunked_prefill;    // default on
  std::optional<bool> prefill_only_steps;        // vLLM V0 without chunked prefill; default off
  std::optional<bool> enable_prefix_caching;     // vLLM V1's default on (V0's off)
  std::optional<int> num_scheduler_steps;        // vLLM V0's multi-step scheduling; default 1
  std::optional<int> tensor_parallel_size;       // default: the model preset's
  std::optional<double> time_scale;              // default 1 (real GPU speed)
  std::optional<std::int64_t> num_gpu_blocks_override;
  std::optional<int> max_model_len;              // no flag: sim_cmd's --max-model-len sets it
  std::optional<double> eos_mean_output_tokens;  // default 256
  // Cost-model and hardware numbers (sim/cost_model.hpp, sim/presets.hpp).
  std::optional<double> compute_efficiency;
  std::optional<double> bandwidth_efficiency;
  std::optional<double> roofline_sharpness;
  std::optional<double> step_overhead_us;
  std::optional<double> seq_overhead_us;
  std::optional<double> allreduce_latency_us;
  std::optional<double> link_efficiency;
  std::optional<double> tp_bandwidth_falloff;
  std::optional<double> activation_reserve_gib;
  std::optional<double> gpu_peak_tflops;
  std::optional<double> gpu_mem_bandwidth_gbs;
  std::optional<double> gpu_mem_gib;
  std::optional<double> gpu_link_bandwidth_gbs;
  std::optional<double> model_params;
  std::string engine_config;                        // --engine-config FILE (TOML)
  std::string kernel_trace;                         // --kernel-trace FILE
  std::string kernel_trace_format = "rocprofv3";    // rocprof | rocprofv3 | nsys
  std::uint64_t kernel_trace_max_rows = 1'000'000;  // recording stops there (file size guard)
  bool list_presets = false;                        // caller prints sim::format_presets() and exits
};

void add_engine_flags(CLI::App& app, EngineFlags& flags);

// Presets + TOML file + flags -> engine configuration. Throws sb::UserError naming the flag or
// FILE:LINE of the first bad value.
sim::EngineConfig resolve_engine_config(const EngineFlags& flags);

// Also checks --kernel-trace-format and that --kernel-trace FILE can be written.
std::unique_ptr<sim::Backend> make_engine_backend(const EngineFlags& flags);

}  // namespace sb::cli
