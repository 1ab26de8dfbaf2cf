#include "sim/presets.hpp"

#include <array>
#include <fmt/format.h>

namespace sb::sim {
namespace {

// Architectures from the models' published config.json files.
const std::array<ModelPreset, 5> kModels = {{
    {"llama-3-8b", 8.03e9, 32, 4096, 32, 8, 128, 14336, 128256, 2, 1, 8192},
    {"llama-3-70b", 70.6e9, 80, 8192, 64, 8, 128, 28672, 128256, 2, 4, 8192},
    {"qwen3-32b", 32.8e9, 64, 5120, 64, 8, 128, 25600, 151936, 2, 1, 32768},
    {"mistral-7b", 7.24e9, 32, 4096, 32, 8, 128, 14336, 32768, 2, 1, 32768},
    {"llama-3.2-1b", 1.24e9, 16, 2048, 32, 8, 64, 8192, 128256, 2, 1, 8192},
}};

// Dense bf16 (no sparsity) peak, memory bandwidth and capacity from vendor data sheets (SXM/OAM
// parts); link bandwidth is the per-direction NVLink / Infinity Fabric / PCIe figure.
const std::array<GpuPreset, 6> kGpus = {{
    {"h100", "NVIDIA H100 80GB HBM3", false, 989, 3350, 79.6, 450},
    {"h200", "NVIDIA H200", false, 989, 4800, 139.8, 450},
    {"mi300x", "AMD Instinct MI300X", true, 1307, 5300, 191.5, 448},
    {"mi250", "AMD Instinct MI250", true, 362, 3277, 63.9, 200},
    {"a100", "NVIDIA A100-SXM4-80GB", false, 312, 2039, 79.1, 300},
    {"l4", "NVIDIA L4", false, 121, 300, 22.0, 32},
}};

template <class T>
const T* find_by_name(std::span<const T> items, std::string_view name) {
  for (const T& item : items) {
    if (item.name == name) return &item;
  }
  return nullptr;
}

}  // namespace

std::span<const ModelPreset> model_presets() { return kModels; }
std::span<const GpuPreset> gpu_presets() { return kGpus; }

const ModelPreset* find_model_preset(std::string_view name) { return find_by_name(model_presets(), name); }

const GpuPreset* find_gpu_preset(std::string_view name) { return find_by_name(gpu_presets(), name); }

std::string format_presets() {
  std::string out = "model presets (--model-preset):\n";
  fmt::format_to(std::back_inserter(out), "  {:<14} {:>8} {:>7} {:>7} {:>6} {:>5} {:>8} {:>4}\n", "name", "params",
                 "layers", "hidden", "heads", "kv", "ffn", "tp");
  for (const auto& m : kModels) {
    fmt::format_to(std::back_inserter(out), "  {:<14} {:>7.2f}B {:>7} {:>7} {:>6} {:>5} {:>8} {:>4}\n", m.name,
                   m.params / 1e9, m.num_layers, m.hidden_size, m.num_heads, m.num_kv_heads, m.intermediate_size,
                   m.default_tensor_parallel);
  }
  out += "gpu presets (--gpu-preset):\n";
  fmt::format_to(std::back_inserter(out), "  {:<8} {:>10} {:>10} {:>8} {:>9}  {}\n", "name", "bf16 TFLOPS", "mem GB/s",
                 "mem GiB", "link GB/s", "device");
  for (const auto& g : kGpus) {
    fmt::format_to(std::back_inserter(out), "  {:<8} {:>10.0f} {:>10.0f} {:>8.1f} {:>9.0f}  {}\n", g.name,
                   g.peak_tflops, g.mem_bandwidth_gbs, g.mem_gib, g.link_bandwidth_gbs, g.device_name);
  }
  return out;
}

}  // namespace sb::sim
