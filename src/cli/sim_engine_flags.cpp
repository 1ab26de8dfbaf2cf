#include "cli/sim_engine_flags.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fmt/format.h>
#include <functional>
#include <toml++/toml.h>
#include <vector>

#include "core/error.hpp"
#include "sim/engine_backend.hpp"
#include "sim/presets.hpp"

namespace sb::cli {
namespace {

template <class T>
CLI::Option* add_optional(CLI::App& app, const std::string& name, std::optional<T>& target, const std::string& help) {
  return app.add_option_function<T>(
      name, [&target](const T& v) { target = v; }, help);
}

void add_cost_flags(CLI::App& app, EngineFlags& f) {
  const auto positive = CLI::Range(1e-9, 1e18);
  add_optional(app, "--compute-efficiency", f.compute_efficiency, "Achieved fraction of peak FLOPs (0-1]")
      ->check(CLI::Range(1e-6, 1.0));
  add_optional(app, "--bandwidth-efficiency", f.bandwidth_efficiency, "Achieved fraction of memory bandwidth (0-1]")
      ->check(CLI::Range(1e-6, 1.0));
  add_optional(app, "--roofline-sharpness", f.roofline_sharpness,
               "n of the smooth roofline (compute^n + memory^n)^(1/n); large n is max()")
      ->check(CLI::Range(1.0, 1e6));
  add_optional(app, "--step-overhead-us", f.step_overhead_us, "Fixed host time per engine step, microseconds")
      ->check(CLI::Range(0.0, 1e9));
  add_optional(app, "--seq-overhead-us", f.seq_overhead_us, "Host time per sequence in a step, microseconds")
      ->check(CLI::Range(0.0, 1e9));
  add_optional(app, "--allreduce-latency-us", f.allreduce_latency_us, "Fixed cost of one TP all-reduce, microseconds")
      ->check(CLI::Range(0.0, 1e9));
  add_optional(app, "--link-efficiency", f.link_efficiency, "Achieved fraction of link bandwidth in all-reduces (0-1]")
      ->check(CLI::Range(1e-6, 1.0));
  add_optional(app, "--tp-bandwidth-falloff", f.tp_bandwidth_falloff,
               "Per-GPU bandwidth efficiency divided by 1 + this x (TP - 1)")
      ->check(CLI::Range(0.0, 1e3));
  add_optional(app, "--activation-reserve-gib", f.activation_reserve_gib,
               "GPU memory kept out of the KV cache besides the weights, GiB (default: derived as vLLM's "
               "start-up profiling finds it)")
      ->check(CLI::Range(0.0, 1e6));
  add_optional(app, "--gpu-peak-tflops", f.gpu_peak_tflops, "Dense bf16 peak of one GPU, TFLOPS")->check(positive);
  add_optional(app, "--gpu-mem-bandwidth-gbs", f.gpu_mem_bandwidth_gbs, "Memory bandwidth of one GPU, GB/s")
      ->check(positive);
  add_optional(app, "--gpu-mem-gib", f.gpu_mem_gib, "Memory of one GPU, GiB")->check(positive);
  add_optional(app, "--gpu-link-bandwidth-gbs", f.gpu_link_bandwidth_gbs, "Per-GPU interconnect bandwidth, GB/s")
      ->check(positive);
  add_optional(app, "--model-params", f.model_params, "Parameter count of the model (e.g. 8.03e9)")->check(positive);
}

}  // namespace

void add_engine_flags(CLI::App& app, EngineFlags& f) {
  add_optional(app, "--model-preset", f.model_preset, "Model architecture preset (see --list-presets)");
  add_optional(app, "--gpu-preset", f.gpu_preset, "GPU preset (see --list-presets)");
  add_optional(app, "--max-num-seqs", f.max_num_seqs, "Most sequences in one batch (vLLM default 256)")
      ->check(CLI::Range(1, 1 << 20));
  add_optional(app, "--max-num-batched-tokens", f.max_num_batched_tokens, "Token budget of one engine step")
      ->check(CLI::Range(1, 1 << 24));
  add_optional(app, "--block-size", f.block_size, "KV-cache block size in tokens")->check(CLI::Range(1, 4096));
  add_optional(app, "--gpu-memory-utilization", f.gpu_memory_utilization, "Fraction of GPU memory the engine may use")
      ->check(CLI::Range(0.01, 1.0));
  app.add_flag_function(
      "--enable-chunked-prefill,!--no-enable-chunked-prefill",
      [&f](std::int64_t count) { f.enable_chunked_prefill = count > 0; },
      "Split long prompts across steps (default on)");
  app.add_flag_function(
      "--enable-prefix-caching,!--no-enable-prefix-caching",
      [&f](std::int64_t count) { f.enable_prefix_caching = count > 0; },
      "vLLM V1's prefix caching: a preempted sequence reuses its blocks not yet evicted (default on)");
  // vLLM 0.6 (V0) scheduling, which published figures of that engine need (docs/simulator.md §2).
  app.add_flag_function(
      "--prefill-only-steps", [&f](std::int64_t count) { f.prefill_only_steps = count > 0; },
      "vLLM V0 without chunked prefill: a step that admits prompts runs only prompts (decodes wait)");
  add_optional(app, "--num-scheduler-steps", f.num_scheduler_steps,
               "vLLM V0 multi-step scheduling: a decode-only step becomes a block of N steps (default 1)")
      ->check(CLI::Range(1, 1024));
  add_optional(app, "--tensor-parallel-size", f.tensor_parallel_size, "GPUs the model is split over")
      ->check(CLI::Range(1, 1024));
  add_optional(app, "--time-scale", f.time_scale, "Speed-up over the modelled GPU (demo: finish sooner)")
      ->check(CLI::Range(1e-3, 1e6));
  add_optional(app, "--num-gpu-blocks-override", f.num_gpu_blocks_override,
               "KV-cache blocks instead of the derived count")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 40));
  add_optional(app, "--eos-mean-output-tokens", f.eos_mean_output_tokens,
               "Mean output length drawn when ignore_eos is false")
      ->check(CLI::Range(0.0, 1e9));
  add_cost_flags(app, f);
  app.add_option("--engine-config", f.engine_config, "TOML file overriding preset numbers")->check(CLI::ExistingFile);
  app.add_option("--kernel-trace", f.kernel_trace, "Write simulated kernels here while profiling");
  app.add_option("--kernel-trace-format", f.kernel_trace_format, "rocprof | rocprofv3 | nsys")
      ->check(CLI::IsMember({"rocprof", "rocprofv3", "nsys"}));
  app.add_option("--kernel-trace-max-rows", f.kernel_trace_max_rows, "Stop recording after this many kernels")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 40));
  app.add_flag("--list-presets", f.list_presets, "Print the model and GPU presets and exit");
}

namespace {

// ---- the --engine-config TOML layer ----------------------------------------------------------

using Setter = std::function<void(const toml::node&, const std::string& where)>;

struct Field {
  std::string_view section;
  std::string_view key;
  Setter set;
};

double as_number(const toml::node& n, const std::string& where) {
  if (const auto* i = n.as_integer()) return static_cast<double>(i->get());
  if (const auto* f = n.as_floating_point()) return f->get();
  throw UserError(where + ": expected a number");
}

std::int64_t as_integer(const toml::node& n, const std::string& where) {
  if (const auto* i = n.as_integer()) return i->get();
  throw UserError(where + ": expected an integer");
}

template <class T>
Setter number_into(T& target) {
  return [&target](const toml::node& n, const std::string& where) {
    if constexpr (std::is_integral_v<T>) {
      target = static_cast<T>(as_integer(n, where));
    } else {
      target = static_cast<T>(as_number(n, where));
    }
  };
}

Setter bool_into(bool& target) {
  return [&target](const toml::node& n, const std::string& where) {
    const auto* b = n.as_boolean();
    if (b == nullptr) throw UserError(where + ": expected true or false");
    target = b->get();
  };
}

Setter string_into(std::string& target) {
  return [&target](const toml::node& n, const std::string& where) {
    const auto* s = n.as_string();
    if (s == nullptr) throw UserError(where + ": expected a string");
    target = s->get();
  };
}

// Every key the file may set; preset names are read before this (they choose the base values).
std::vector<Field> toml_fields(sim::EngineConfig& c) {
  auto& m = c.hardware.model;
  auto& g = c.hardware.gpu;
  auto& k = c.hardware.cost;
  auto& s = c.scheduler;
  auto ignore = [](const toml::node&, const std::string&) {};
  return {
      {"engine", "model_preset", ignore},
      {"engine", "gpu_preset", ignore},
      {"engine", "max_num_seqs", number_into(s.max_num_seqs)},
      {"engine", "max_num_batched_tokens", number_into(s.max_num_batched_tokens)},
      {"engine", "enable_chunked_prefill", bool_into(s.chunked_prefill)},
      {"engine", "prefill_only_steps", bool_into(s.prefill_only_steps)},
      {"engine", "enable_prefix_caching", bool_into(s.prefix_caching)},
      {"engine", "num_scheduler_steps", number_into(s.num_scheduler_steps)},
      {"engine", "block_size", number_into(c.block_size)},
      {"engine", "gpu_memory_utilization", number_into(c.gpu_memory_utilization)},
      {"engine", "tensor_parallel_size", number_into(c.hardware.tensor_parallel)},
      {"engine", "time_scale", number_into(c.time_scale)},
      {"engine", "num_gpu_blocks_override", number_into(c.num_gpu_blocks_override)},
      {"engine", "max_model_len", number_into(c.max_model_len)},
      {"engine", "eos_mean_output_tokens", number_into(c.eos_mean_output_tokens)},
      {"model", "name", string_into(m.name)},
      {"model", "params", number_into(m.params)},
      {"model", "num_layers", number_into(m.num_layers)},
      {"model", "hidden_size", number_into(m.hidden_size)},
      {"model", "num_heads", number_into(m.num_heads)},
      {"model", "num_kv_heads", number_into(m.num_kv_heads)},
      {"model", "head_dim", number_into(m.head_dim)},
      {"model", "intermediate_size", number_into(m.intermediate_size)},
      {"model", "vocab_size", number_into(m.vocab_size)},
      {"model", "tie_word_embeddings", bool_into(m.tied_embeddings)},
      {"model", "dtype_bytes", number_into(m.dtype_bytes)},
      {"gpu", "name", string_into(g.name)},
      {"gpu", "device_name", string_into(g.device_name)},
      {"gpu", "amd", bool_into(g.amd)},
      {"gpu", "peak_tflops", number_into(g.peak_tflops)},
      {"gpu", "mem_bandwidth_gbs", number_into(g.mem_bandwidth_gbs)},
      {"gpu", "mem_gib", number_into(g.mem_gib)},
      {"gpu", "link_bandwidth_gbs", number_into(g.link_bandwidth_gbs)},
      {"cost", "compute_efficiency", number_into(k.compute_efficiency)},
      {"cost", "bandwidth_efficiency", number_into(k.bandwidth_efficiency)},
      {"cost", "roofline_sharpness", number_into(k.roofline_sharpness)},
      {"cost", "step_overhead_us", number_into(k.step_overhead_us)},
      {"cost", "seq_overhead_us", number_into(k.seq_overhead_us)},
      {"cost", "allreduce_latency_us", number_into(k.allreduce_latency_us)},
      {"cost", "link_efficiency", number_into(k.link_efficiency)},
      {"cost", "tp_bandwidth_falloff", number_into(k.tp_bandwidth_falloff)},
      {"cost", "activation_reserve_gib", number_into(k.activation_reserve_gib)},
  };
}

toml::table load_toml(const std::string& path) {
  try {
    return toml::parse_file(path);
  } catch (const toml::parse_error& e) {
    const auto& at = e.source().begin;
    throw UserError(fmt::format("{}:{}:{}: {}", path, at.line, at.column, one_line(e.description())));
  }
}

std::optional<std::string> toml_preset(const toml::table& t, std::string_view key) {
  if (auto v = t["engine"][key].value<std::string>()) return *v;
  return std::nullopt;
}

void apply_toml(const toml::table& t, const std::string& path, sim::EngineConfig& c) {
  const std::vector<Field> fields = toml_fields(c);
  for (const auto& [section, node] : t) {
    const auto* table = node.as_table();
    const std::string sec(section.str());
    if (table == nullptr) {
      throw UserError(fmt::format("{}:{}: '{}' must be a table: [engine], [model], [gpu] or [cost]", path,
                                  node.source().begin.line, sec));
    }
    for (const auto& [key, value] : *table) {
      const std::string name(key.str());  // a copy: clang 14 cannot capture the structured binding below
      const std::string where = fmt::format("{}:{} ({}.{})", path, value.source().begin.line, sec, name);
      const auto it = std::find_if(fields.begin(), fields.end(),
                                   [&](const Field& f) { return f.section == sec && f.key == name; });
      if (it == fields.end()) throw UserError(where + ": unknown key");
      it->set(value, where);
    }
  }
}

// ---- presets and flags ---------------------------------------------------------------------------

sim::EngineConfig from_presets(const std::string& model_name, const std::string& gpu_name) {
  const sim::ModelPreset* model = sim::find_model_preset(model_name);
  if (model == nullptr) {
    throw UserError(fmt::format("--model-preset {}: unknown (servebench sim --list-presets)", model_name));
  }
  const sim::GpuPreset* gpu = sim::find_gpu_preset(gpu_name);
  if (gpu == nullptr)
    throw UserError(fmt::format("--gpu-preset {}: unknown (servebench sim --list-presets)", gpu_name));
  sim::EngineConfig c;
  c.hardware.model = *model;
  c.hardware.gpu = *gpu;
  c.hardware.cost = gpu->cost;
  c.hardware.tensor_parallel = model->default_tensor_parallel;
  return c;
}

template <class T, class U>
void take(const std::optional<T>& flag, U& target) {
  if (flag) target = static_cast<U>(*flag);
}

void apply_flags(const EngineFlags& f, sim::EngineConfig& c) {
  take(f.max_num_seqs, c.scheduler.max_num_seqs);
  take(f.max_num_batched_tokens, c.scheduler.max_num_batched_tokens);
  take(f.enable_chunked_prefill, c.scheduler.chunked_prefill);
  take(f.prefill_only_steps, c.scheduler.prefill_only_steps);
  take(f.enable_prefix_caching, c.scheduler.prefix_caching);
  take(f.num_scheduler_steps, c.scheduler.num_scheduler_steps);
  take(f.block_size, c.block_size);
  take(f.gpu_memory_utilization, c.gpu_memory_utilization);
  take(f.tensor_parallel_size, c.hardware.tensor_parallel);
  take(f.time_scale, c.time_scale);
  take(f.num_gpu_blocks_override, c.num_gpu_blocks_override);
  take(f.max_model_len, c.max_model_len);
  take(f.eos_mean_output_tokens, c.eos_mean_output_tokens);
  take(f.compute_efficiency, c.hardware.cost.compute_efficiency);
  take(f.bandwidth_efficiency, c.hardware.cost.bandwidth_efficiency);
  take(f.roofline_sharpness, c.hardware.cost.roofline_sharpness);
  take(f.step_overhead_us, c.hardware.cost.step_overhead_us);
  take(f.seq_overhead_us, c.hardware.cost.seq_overhead_us);
  take(f.allreduce_latency_us, c.hardware.cost.allreduce_latency_us);
  take(f.link_efficiency, c.hardware.cost.link_efficiency);
  take(f.tp_bandwidth_falloff, c.hardware.cost.tp_bandwidth_falloff);
  take(f.activation_reserve_gib, c.hardware.cost.activation_reserve_gib);
  take(f.gpu_peak_tflops, c.hardware.gpu.peak_tflops);
  take(f.gpu_mem_bandwidth_gbs, c.hardware.gpu.mem_bandwidth_gbs);
  take(f.gpu_mem_gib, c.hardware.gpu.mem_gib);
  take(f.gpu_link_bandwidth_gbs, c.hardware.gpu.link_bandwidth_gbs);
  take(f.model_params, c.hardware.model.params);
}

// The TOML layer bypasses CLI11's range checks, so the merged result is checked once here.
void check_positive(double value, std::string_view name) {
  if (!(value > 0)) throw UserError(fmt::format("engine config: {} must be positive (got {})", name, value));
}

void validate(const sim::EngineConfig& c) {
  const auto& m = c.hardware.model;
  const auto& g = c.hardware.gpu;
  const auto& k = c.hardware.cost;
  for (const auto& [value, name] : {std::pair{m.params, "model.params"},
                                    {m.dtype_bytes, "model.dtype_bytes"},
                                    {g.peak_tflops, "gpu.peak_tflops"},
                                    {g.mem_bandwidth_gbs, "gpu.mem_bandwidth_gbs"},
                                    {g.mem_gib, "gpu.mem_gib"},
                                    {k.compute_efficiency, "cost.compute_efficiency"},
                                    {k.bandwidth_efficiency, "cost.bandwidth_efficiency"},
                                    {k.link_efficiency, "cost.link_efficiency"}}) {
    check_positive(value, name);
  }
  for (const auto& [value, name] : {std::pair{m.num_layers, "model.num_layers"},
                                    {m.hidden_size, "model.hidden_size"},
                                    {m.num_heads, "model.num_heads"},
                                    {m.num_kv_heads, "model.num_kv_heads"},
                                    {m.head_dim, "model.head_dim"},
                                    {m.intermediate_size, "model.intermediate_size"},
                                    {m.vocab_size, "model.vocab_size"},
                                    {c.hardware.tensor_parallel, "tensor_parallel_size"}}) {
    check_positive(value, name);
  }
  if (k.compute_efficiency > 1 || k.bandwidth_efficiency > 1 || k.link_efficiency > 1) {
    throw UserError("engine config: cost efficiencies are fractions and must be at most 1");
  }
  if (!(k.roofline_sharpness >= 1)) {
    throw UserError(
        fmt::format("engine config: cost.roofline_sharpness must be at least 1 (got {})", k.roofline_sharpness));
  }
  for (const auto& [value, name] : {std::pair{k.step_overhead_us, "cost.step_overhead_us"},
                                    {k.seq_overhead_us, "cost.seq_overhead_us"},
                                    {k.allreduce_latency_us, "cost.allreduce_latency_us"},
                                    {k.tp_bandwidth_falloff, "cost.tp_bandwidth_falloff"},
                                    {k.activation_reserve_gib.value_or(0), "cost.activation_reserve_gib"}}) {
    if (!(value >= 0)) throw UserError(fmt::format("engine config: {} must not be negative (got {})", name, value));
  }
  if (c.gpu_memory_utilization <= 0 || c.gpu_memory_utilization > 1) {
    throw UserError(
        fmt::format("engine config: gpu_memory_utilization must be in (0, 1] (got {})", c.gpu_memory_utilization));
  }
}

}  // namespace

sim::EngineConfig resolve_engine_config(const EngineFlags& flags) {
  toml::table file;
  if (!flags.engine_config.empty()) file = load_toml(flags.engine_config);
  const std::string model = flags.model_preset.value_or(toml_preset(file, "model_preset").value_or("llama-3-8b"));
  const std::string gpu = flags.gpu_preset.value_or(toml_preset(file, "gpu_preset").value_or("h100"));
  sim::EngineConfig config = from_presets(model, gpu);
  apply_toml(file, flags.engine_config, config);
  apply_flags(flags, config);
  validate(config);
  return config;
}

std::unique_ptr<sim::Backend> make_engine_backend(const EngineFlags& flags) {
  const sim::EngineConfig config = resolve_engine_config(flags);
  const auto format = sim::parse_trace_format(flags.kernel_trace_format);
  if (!format) {
    throw UserError(
        fmt::format("--kernel-trace-format {}: expected rocprof, rocprofv3 or nsys", flags.kernel_trace_format));
  }
  if (!flags.kernel_trace.empty()) {
    // Fail at startup, not at the first /start_profile, when the path is unusable.
    // The probe creates the file the trace will replace; errno says why it could not (a missing
    // folder, a read-only disk), which "cannot open" alone does not.
    std::FILE* probe = std::fopen(flags.kernel_trace.c_str(), "w");
    if (probe == nullptr)
      throw UserError(fmt::format("--kernel-trace {}: cannot open for writing: {}", flags.kernel_trace,
                                  std::strerror(errno)));
    std::fclose(probe);
  }
  return std::make_unique<sim::EngineBackend>(
      config, sim::KernelTraceOptions{flags.kernel_trace, *format, flags.kernel_trace_max_rows});
}

}  // namespace sb::cli
