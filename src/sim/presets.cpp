#include "sim/presets.hpp"

#include <array>
#include <fmt/format.h>

namespace sb::sim {
namespace {

// Architectures from the models' published config.json files (tie_word_embeddings: only Llama-3.2-1B).
const std::array<ModelPreset, 5> kModels = {{
    {"llama-3-8b", 8.03e9, 32, 4096, 32, 8, 128, 14336, 128256, 2, 1, 8192},
    {"llama-3-70b", 70.6e9, 80, 8192, 64, 8, 128, 28672, 128256, 2, 4, 8192},
    {"qwen3-32b", 32.8e9, 64, 5120, 64, 8, 128, 25600, 151936, 2, 1, 32768},
    {"mistral-7b", 7.24e9, 32, 4096, 32, 8, 128, 14336, 32768, 2, 1, 32768},
    {"llama-3.2-1b", 1.24e9, 16, 2048, 32, 8, 64, 8192, 128256, 2, 1, 8192, true},
}};

// What each family achieves with vLLM, as fractions of the data sheet plus host and all-reduce
// costs; docs/simulator.md gives the published run behind each number and the error against it.
// Bandwidth efficiencies are of the weights a step streams: every parameter but an untied
// embedding table (sim/cost_model.hpp). Hopper: cuBLAS streams Llama-3-8B's 15.01 GB at 80 % of an
// H200's 4.8 TB/s (bench/gpu/linear_roofline.py, docs/simulator.md); with ~0.86 ms of host time that
// is 6.46 ms single-request decode on an H100.
constexpr CostParams kHopper{};
// Ampere: the same stack; its Llama-3-8B rows (A100-40GB single-request decode at 13.3 ms TPOT,
// the A100 ShareGPT rows) fit 0.75 of the bandwidth, and its prefill row (SGLang TTFT) 0.57 of the
// dense peak, with the lm_head charged for sampled rows only.
constexpr CostParams kAmpere{.compute_efficiency = 0.57, .bandwidth_efficiency = 0.75, .allreduce_latency_us = 14};
// Ada (L4): PCIe only, so all-reduces are slow; otherwise NVIDIA's stack.
constexpr CostParams kAda{.allreduce_latency_us = 25, .link_efficiency = 0.6};
// CDNA3 (MI300X): ROCm kernels reach a smaller share of the larger data sheet, RCCL all-reduces
// cost more per call, and the host path is longer.
constexpr CostParams kCdna3{.compute_efficiency = 0.45,
                            .bandwidth_efficiency = 0.79,
                            .step_overhead_us = 1000,
                            .allreduce_latency_us = 28,
                            .link_efficiency = 0.6};
// CDNA2 (MI250, one GCD as vLLM sees it): older kernels still.
constexpr CostParams kCdna2{.compute_efficiency = 0.4,
                            .bandwidth_efficiency = 0.65,
                            .step_overhead_us = 1200,
                            .allreduce_latency_us = 25,
                            .link_efficiency = 0.6};

// Dense bf16 (no sparsity) peak, memory bandwidth and capacity from vendor data sheets (SXM/OAM
// parts); link bandwidth is the per-direction NVLink / Infinity Fabric / PCIe figure. MI250 is one
// of its two GCDs (half the package's 362 TFLOPS and 3.28 TB/s), the device vLLM and rocm-smi see.
// Capacity is the total CUDA reports, which vLLM multiplies by gpu_memory_utilization: an H100
// 80GB HBM3 shows 79.19 GiB in vLLM's start-up log ("Free memory on device (78.66/79.19 GiB)",
// vLLM 0.10.2; llm-d-incubation/llm-d-planner accuracy/accuracy_report.md), not nvidia-smi's 79.6.
const std::array<GpuPreset, 7> kGpus = {{
    {"h100", "NVIDIA H100 80GB HBM3", false, 989, 3350, 79.19, 450, kHopper},
    {"h200", "NVIDIA H200", false, 989, 4800, 139.8, 450, kHopper},
    {"mi300x", "AMD Instinct MI300X", true, 1307, 5300, 191.5, 448, kCdna3},
    {"mi250", "AMD Instinct MI250", true, 181, 1638, 63.9, 200, kCdna2},
    {"a100", "NVIDIA A100-SXM4-80GB", false, 312, 2039, 79.1, 300, kAmpere},
    {"a100-40gb", "NVIDIA A100-SXM4-40GB", false, 312, 1555, 39.4, 300, kAmpere},
    {"l4", "NVIDIA L4", false, 121, 300, 22.0, 32, kAda},
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
  fmt::format_to(std::back_inserter(out), "  {:<10} {:>10} {:>10} {:>8} {:>9}  {}\n", "name", "bf16 TFLOPS", "mem GB/s",
                 "mem GiB", "link GB/s", "device");
  for (const auto& g : kGpus) {
    fmt::format_to(std::back_inserter(out), "  {:<10} {:>10.0f} {:>10.0f} {:>8.1f} {:>9.0f}  {}\n", g.name,
                   g.peak_tflops, g.mem_bandwidth_gbs, g.mem_gib, g.link_bandwidth_gbs, g.device_name);
  }
  return out;
}

}  // namespace sb::sim
