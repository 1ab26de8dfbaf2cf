#include "sim/engine_knobs.hpp"

#include <fmt/format.h>

#include <array>
#include <climits>
#include <stdexcept>

namespace sb::sim {
namespace {

// The field of each knob, by the struct it sits in.
template <auto M>
KnobField engine(EngineConfig& c) {
  return &(c.*M);
}
template <auto M>
KnobField scheduler(EngineConfig& c) {
  return &(c.scheduler.*M);
}
template <auto M>
KnobField cost(EngineConfig& c) {
  return &(c.hardware.cost.*M);
}
template <auto M>
KnobField model(EngineConfig& c) {
  return &(c.hardware.model.*M);
}
template <auto M>
KnobField gpu(EngineConfig& c) {
  return &(c.hardware.gpu.*M);
}
KnobField tensor_parallel(EngineConfig& c) { return &c.hardware.tensor_parallel; }

// A row: a knob's table, key, flag, field, range and help; a switch with a --no- twin and a fitted
// number say so around it.
constexpr EngineKnob knob(std::string_view table, std::string_view key, std::string_view flag,
                          KnobField (*field)(EngineConfig&), double min, double max, std::string_view help) {
  EngineKnob k;
  k.table = table;
  k.key = key;
  k.flag = flag;
  k.field = field;
  k.min = min;
  k.max = max;
  k.help = help;
  return k;
}

constexpr EngineKnob negatable(EngineKnob k) {
  k.negatable = true;
  return k;
}

constexpr EngineKnob fitted(EngineKnob k, double lower, double upper, bool tensor_parallel_only = false) {
  k.fit = KnobFit{lower, upper, tensor_parallel_only};
  return k;
}

constexpr double kPositive = 1e-9, kHuge = 1e18;
constexpr double kIntMax = INT_MAX;

// The flags come first, in the order --help lists them; then the keys only the file sets.
// Ranges: what the engine can run, with room around every preset; efficiencies are fractions of
// the data sheet's peak, so they stay at most 1.
// Fit bounds: physically possible values with room on both sides of every preset. seq_overhead_us,
// roofline_sharpness and tp_bandwidth_falloff are not fitted: a staircase's stages move them
// together with step_overhead_us and bandwidth_efficiency, which the fit would then trade against
// each other (docs/predict.md).
constexpr auto kKnobs = std::to_array<EngineKnob>({
    knob("engine", "model_preset", "--model-preset", nullptr, 0, 0, "Model architecture preset (see --list-presets)"),
    knob("engine", "gpu_preset", "--gpu-preset", nullptr, 0, 0, "GPU preset (see --list-presets)"),
    knob("engine", "max_num_seqs", "--max-num-seqs", scheduler<&SchedulerConfig::max_num_seqs>, 1, 1 << 20,
         "Most sequences in one batch (vLLM default 256)"),
    knob("engine", "max_num_batched_tokens", "--max-num-batched-tokens",
         scheduler<&SchedulerConfig::max_num_batched_tokens>, 1, 1 << 24, "Token budget of one engine step"),
    knob("engine", "block_size", "--block-size", engine<&EngineConfig::block_size>, 1, 4096,
         "KV-cache block size in tokens"),
    knob("engine", "gpu_memory_utilization", "--gpu-memory-utilization", engine<&EngineConfig::gpu_memory_utilization>,
         0.01, 1, "Fraction of GPU memory the engine may use"),
    negatable(knob("engine", "enable_chunked_prefill", "--enable-chunked-prefill",
                   scheduler<&SchedulerConfig::chunked_prefill>, 0, 0, "Split long prompts across steps (default on)")),
    negatable(knob("engine", "enable_prefix_caching", "--enable-prefix-caching",
                   scheduler<&SchedulerConfig::prefix_caching>, 0, 0,
                   "vLLM V1's prefix caching: a preempted sequence reuses its blocks not yet evicted (default on)")),
    // vLLM 0.6 (V0) scheduling, which published figures of that engine need (docs/simulator.md §2).
    knob("engine", "prefill_only_steps", "--prefill-only-steps", scheduler<&SchedulerConfig::prefill_only_steps>, 0, 0,
         "vLLM V0 without chunked prefill: a step that admits prompts runs only prompts (decodes wait)"),
    knob("engine", "num_scheduler_steps", "--num-scheduler-steps", scheduler<&SchedulerConfig::num_scheduler_steps>, 1,
         1024, "vLLM V0 multi-step scheduling: a decode-only step becomes a block of N steps (default 1)"),
    knob("engine", "tensor_parallel_size", "--tensor-parallel-size", tensor_parallel, 1, 1024,
         "GPUs the model is split over"),
    knob("engine", "time_scale", "--time-scale", engine<&EngineConfig::time_scale>, 1e-3, 1e6,
         "Speed-up over the modelled GPU (demo: finish sooner)"),
    knob("engine", "num_gpu_blocks_override", "--num-gpu-blocks-override",
         engine<&EngineConfig::num_gpu_blocks_override>, 1, 1099511627776.0,
         "KV-cache blocks instead of the derived count"),
    knob("engine", "eos_mean_output_tokens", "--eos-mean-output-tokens", engine<&EngineConfig::eos_mean_output_tokens>,
         0, 1e9, "Mean output length drawn when ignore_eos is false"),
    fitted(knob("cost", "compute_efficiency", "--compute-efficiency", cost<&CostParams::compute_efficiency>, 1e-6, 1,
                "Achieved fraction of peak FLOPs (0-1]"),
           0.02, 1.0),
    fitted(knob("cost", "bandwidth_efficiency", "--bandwidth-efficiency", cost<&CostParams::bandwidth_efficiency>, 1e-6,
                1, "Achieved fraction of memory bandwidth (0-1]"),
           0.05, 1.0),
    knob("cost", "roofline_sharpness", "--roofline-sharpness", cost<&CostParams::roofline_sharpness>, 1, 1e6,
         "n of the smooth roofline (compute^n + memory^n)^(1/n); large n is max()"),
    fitted(knob("cost", "step_overhead_us", "--step-overhead-us", cost<&CostParams::step_overhead_us>, 0, 1e9,
                "Fixed host time per engine step, microseconds"),
           1.0, 1e5),
    knob("cost", "seq_overhead_us", "--seq-overhead-us", cost<&CostParams::seq_overhead_us>, 0, 1e9,
         "Host time per sequence in a step, microseconds"),
    fitted(knob("cost", "allreduce_latency_us", "--allreduce-latency-us", cost<&CostParams::allreduce_latency_us>, 0,
                1e9, "Fixed cost of one TP all-reduce, microseconds"),
           0.1, 1e4, true),
    fitted(knob("cost", "link_efficiency", "--link-efficiency", cost<&CostParams::link_efficiency>, 1e-6, 1,
                "Achieved fraction of link bandwidth in all-reduces (0-1]"),
           0.05, 1.0, true),
    knob("cost", "tp_bandwidth_falloff", "--tp-bandwidth-falloff", cost<&CostParams::tp_bandwidth_falloff>, 0, 1e3,
         "Per-GPU bandwidth efficiency divided by 1 + this x (TP - 1)"),
    knob("cost", "activation_reserve_gib", "--activation-reserve-gib", cost<&CostParams::activation_reserve_gib>, 0,
         1e6,
         "GPU memory kept out of the KV cache besides the weights, GiB (default: derived as vLLM's start-up profiling "
         "finds it)"),
    knob("gpu", "peak_tflops", "--gpu-peak-tflops", gpu<&GpuPreset::peak_tflops>, kPositive, kHuge,
         "Dense bf16 peak of one GPU, TFLOPS"),
    knob("gpu", "mem_bandwidth_gbs", "--gpu-mem-bandwidth-gbs", gpu<&GpuPreset::mem_bandwidth_gbs>, kPositive, kHuge,
         "Memory bandwidth of one GPU, GB/s"),
    knob("gpu", "mem_gib", "--gpu-mem-gib", gpu<&GpuPreset::mem_gib>, kPositive, kHuge, "Memory of one GPU, GiB"),
    knob("gpu", "link_bandwidth_gbs", "--gpu-link-bandwidth-gbs", gpu<&GpuPreset::link_bandwidth_gbs>, kPositive, kHuge,
         "Per-GPU interconnect bandwidth, GB/s"),
    knob("model", "params", "--model-params", model<&ModelPreset::params>, kPositive, kHuge,
         "Parameter count of the model (e.g. 8.03e9)"),
    // No flag: `sim --max-model-len` is the server's limit, which sets this too (cli/sim_cmd.cpp).
    knob("engine", "max_model_len", "", engine<&EngineConfig::max_model_len>, 0, 1 << 30,
         "Longest prompt + output a request may have; 0: the model preset's"),
    knob("model", "name", "", model<&ModelPreset::name>, 0, 0, "Model name (the served name by default)"),
    knob("model", "num_layers", "", model<&ModelPreset::num_layers>, 1, kIntMax, "Transformer layers"),
    knob("model", "hidden_size", "", model<&ModelPreset::hidden_size>, 1, kIntMax, "Hidden (embedding) width"),
    knob("model", "num_heads", "", model<&ModelPreset::num_heads>, 1, kIntMax, "Query heads"),
    knob("model", "num_kv_heads", "", model<&ModelPreset::num_kv_heads>, 1, kIntMax,
         "KV heads (grouped-query attention)"),
    knob("model", "head_dim", "", model<&ModelPreset::head_dim>, 1, kIntMax, "Width of one attention head"),
    knob("model", "intermediate_size", "", model<&ModelPreset::intermediate_size>, 1, kIntMax,
         "MLP width (gate/up projections)"),
    knob("model", "vocab_size", "", model<&ModelPreset::vocab_size>, 1, kIntMax, "Vocabulary size"),
    knob("model", "tie_word_embeddings", "", model<&ModelPreset::tied_embeddings>, 0, 0,
         "The lm_head is the embedding table (HF tie_word_embeddings)"),
    knob("model", "dtype_bytes", "", model<&ModelPreset::dtype_bytes>, kPositive, kHuge,
         "Bytes per weight and KV-cache element (2: bf16)"),
    knob("gpu", "name", "", gpu<&GpuPreset::name>, 0, 0, "GPU name"),
    knob("gpu", "device_name", "", gpu<&GpuPreset::device_name>, 0, 0, "Device name as profilers print it"),
    knob("gpu", "amd", "", gpu<&GpuPreset::amd>, 0, 0, "An AMD GPU: ROCm kernel names in traces"),
});

constexpr std::array<std::string_view, 4> kTables{"engine", "model", "gpu", "cost"};

KnobField field_of(const EngineKnob& knob, const EngineConfig& config) {
  // The field is only read through this pointer.
  return knob.field(const_cast<EngineConfig&>(config));
}

}  // namespace

std::span<const EngineKnob> engine_knobs() { return kKnobs; }
std::span<const std::string_view> knob_tables() { return kTables; }

const EngineKnob* find_knob(std::string_view table, std::string_view key) {
  for (const EngineKnob& k : kKnobs)
    if (k.table == table && k.key == key) return &k;
  return nullptr;
}

const EngineKnob* find_knob(std::string_view path) {
  const std::size_t dot = path.find('.');
  if (dot == std::string_view::npos) return nullptr;
  return find_knob(path.substr(0, dot), path.substr(dot + 1));
}

std::string knob_path(const EngineKnob& knob) { return fmt::format("{}.{}", knob.table, knob.key); }

std::size_t knob_index(const EngineKnob& knob) { return static_cast<std::size_t>(&knob - kKnobs.data()); }

KnobType knob_type(const EngineKnob& knob) {
  if (knob.is_preset()) return KnobType::text;
  static const EngineConfig scratch;
  return std::visit(
      [](auto* p) {
        using T = std::remove_pointer_t<decltype(p)>;
        if constexpr (std::is_same_v<T, int> || std::is_same_v<T, std::int64_t>)
          return KnobType::integer;
        else if constexpr (std::is_same_v<T, double> || std::is_same_v<T, std::optional<double>>)
          return KnobType::number;
        else if constexpr (std::is_same_v<T, bool>)
          return KnobType::boolean;
        else
          return KnobType::text;
      },
      field_of(knob, scratch));
}

std::optional<KnobValue> knob_value(const EngineKnob& knob, const EngineConfig& config) {
  if (knob.is_preset()) return std::nullopt;
  return std::visit(
      [](auto* p) -> std::optional<KnobValue> {
        using T = std::remove_pointer_t<decltype(p)>;
        if constexpr (std::is_same_v<T, int>)
          return KnobValue{std::int64_t{*p}};
        else if constexpr (std::is_same_v<T, std::optional<double>>)
          return p->has_value() ? std::optional<KnobValue>(**p) : std::nullopt;
        else
          return KnobValue{*p};
      },
      field_of(knob, config));
}

void set_knob(const EngineKnob& knob, const KnobValue& value, EngineConfig& config) {
  if (knob.is_preset()) return;
  std::visit(
      [&value](auto* p) {
        using T = std::remove_pointer_t<decltype(p)>;
        if constexpr (std::is_same_v<T, int>)
          *p = static_cast<int>(std::get<std::int64_t>(value));
        else if constexpr (std::is_same_v<T, std::int64_t> || std::is_same_v<T, bool> || std::is_same_v<T, std::string>)
          *p = std::get<T>(value);
        else if (const auto* i = std::get_if<std::int64_t>(&value))
          *p = static_cast<double>(*i);
        else
          *p = std::get<double>(value);
      },
      knob.field(config));
}

std::optional<std::string> knob_bounds_problem(const EngineKnob& knob, const KnobValue& value) {
  double v = 0;
  if (const auto* i = std::get_if<std::int64_t>(&value))
    v = static_cast<double>(*i);
  else if (const auto* d = std::get_if<double>(&value))
    v = *d;
  else
    return std::nullopt;
  if (!(v >= knob.min)) return fmt::format("must be at least {} (got {})", knob.min, v);
  if (!(v <= knob.max)) return fmt::format("must be at most {} (got {})", knob.max, v);
  return std::nullopt;
}

KnobSettings::KnobSettings() : values_(kKnobs.size()) {}

const EngineKnob& KnobSettings::must_find(std::string_view path) {
  const EngineKnob* knob = find_knob(path);
  if (knob == nullptr) throw std::logic_error(fmt::format("no engine knob {}", path));
  return *knob;
}

void KnobSettings::set(std::string_view path, KnobValue value) { set(must_find(path), std::move(value)); }

void KnobSettings::set(const EngineKnob& knob, KnobValue value) {
  const KnobType type = knob_type(knob);
  if (type == KnobType::number && std::holds_alternative<std::int64_t>(value))
    value = static_cast<double>(std::get<std::int64_t>(value));
  const bool fits = (type == KnobType::integer && std::holds_alternative<std::int64_t>(value)) ||
                    (type == KnobType::number && std::holds_alternative<double>(value)) ||
                    (type == KnobType::boolean && std::holds_alternative<bool>(value)) ||
                    (type == KnobType::text && std::holds_alternative<std::string>(value));
  if (!fits) throw std::logic_error(fmt::format("engine knob {}: a value of another type", knob_path(knob)));
  values_[knob_index(knob)] = std::move(value);
}

const std::optional<KnobValue>& KnobSettings::get(const EngineKnob& knob) const { return values_[knob_index(knob)]; }

void KnobSettings::overlay(const KnobSettings& above) {
  for (std::size_t i = 0; i < values_.size(); ++i)
    if (above.values_[i]) values_[i] = above.values_[i];
}

void KnobSettings::apply(EngineConfig& config) const {
  for (const EngineKnob& k : kKnobs)
    if (const auto& v = get(k)) set_knob(k, *v, config);
}

}  // namespace sb::sim
