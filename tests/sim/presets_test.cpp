#include "sim/presets.hpp"

#include <gtest/gtest.h>

namespace sb::sim {
namespace {

TEST(Presets, IssueListIsCovered) {
  for (const char* model : {"llama-3-8b", "llama-3-70b", "qwen3-32b", "llama-3.2-1b"}) {
    EXPECT_NE(find_model_preset(model), nullptr) << model;
  }
  for (const char* gpu : {"h100", "h200", "mi300x", "mi250", "a100", "l4"}) {
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

TEST(Presets, ListingNamesEveryPreset) {
  const std::string text = format_presets();
  for (const ModelPreset& m : model_presets()) EXPECT_NE(text.find(m.name), std::string::npos);
  for (const GpuPreset& g : gpu_presets()) EXPECT_NE(text.find(g.device_name), std::string::npos);
}

}  // namespace
}  // namespace sb::sim
