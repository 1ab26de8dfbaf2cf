#include "sim/presets.hpp"

#include <gtest/gtest.h>

namespace sb::sim {
namespace {

TEST(Presets, IssueListIsCovered) {
  for (const char* model : {"llama-3-8b", "llama-3-70b", "qwen3-32b", "llama-3.2-1b"}) {
    EXPECT_NE(find_model_preset(model), nullptr) << model;
  }
  for (const char* gpu : {"h100", "h200", "mi300x", "mi250", "a100", "a100-40gb", "l4"}) {
    EXPECT_NE(find_gpu_preset(gpu), nullptr) << gpu;
  }
  EXPECT_EQ(find_model_preset("gpt-5"), nullptr);
  EXPECT_EQ(find_gpu_preset("H100"), nullptr);  // names are lower case, exactly as listed
}

TEST(Presets, ArchitecturesAreConsistent) {
  for (const ModelPreset& m : model_presets()) {
    // Attention width equals hidden size for every listed model except qwen3 (64·128 = 8192 > 5120).
    if (m.name != "qwen3-32b") {
      EXPECT_EQ(m.num_heads * m.head_dim, m.hidden_size) << m.name;
    }
    EXPECT_EQ(m.num_heads % m.num_kv_heads, 0) << m.name;
  }
  EXPECT_TRUE(find_gpu_preset("mi300x")->amd);
  EXPECT_FALSE(find_gpu_preset("h100")->amd);
}

TEST(Presets, AmdPartsCarryTheirOwnEfficiencies) {
  // ROCm reaches a smaller share of the data sheet than CUDA does on NVIDIA parts, and RCCL
  // all-reduces cost more per call: the AMD presets must not inherit NVIDIA's fractions.
  const CostParams& h100 = find_gpu_preset("h100")->cost;
  for (const char* amd : {"mi300x", "mi250"}) {
    const CostParams& c = find_gpu_preset(amd)->cost;
    EXPECT_LT(c.compute_efficiency, h100.compute_efficiency) << amd;
    EXPECT_LT(c.bandwidth_efficiency, h100.bandwidth_efficiency) << amd;
    EXPECT_GT(c.allreduce_latency_us, h100.allreduce_latency_us) << amd;
  }
}

TEST(Presets, Mi250IsOneGcdAsVllmSeesIt) {
  // An MI250 package is two GCDs of 64 GB, 181 TFLOPS and 1.64 TB/s each; vLLM and rocm-smi list
  // each GCD as a device, so a TP1 run gets one of them.
  const GpuPreset& g = *find_gpu_preset("mi250");
  EXPECT_DOUBLE_EQ(g.peak_tflops, 181);
  EXPECT_DOUBLE_EQ(g.mem_bandwidth_gbs, 1638);
  EXPECT_LT(g.mem_gib, 64.0);
}

TEST(Presets, EfficienciesAreFractions) {
  for (const GpuPreset& g : gpu_presets()) {
    for (const double f : {g.cost.compute_efficiency, g.cost.bandwidth_efficiency, g.cost.link_efficiency}) {
      EXPECT_GT(f, 0) << g.name;
      EXPECT_LE(f, 1) << g.name;
    }
    EXPECT_GE(g.cost.roofline_sharpness, 1) << g.name;
  }
}

TEST(Presets, ListingNamesEveryPreset) {
  const std::string text = format_presets();
  for (const ModelPreset& m : model_presets()) EXPECT_NE(text.find(m.name), std::string::npos);
  for (const GpuPreset& g : gpu_presets()) EXPECT_NE(text.find(g.device_name), std::string::npos);
}

}  // namespace
}  // namespace sb::sim
