#include "sim/activation_reserve.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "engine_test_util.hpp"
#include "sim/cost_model.hpp"
#include "sim/presets.hpp"

namespace sb::sim {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

ModelPreset preset(const char* name) { return *find_model_preset(name); }

// A model by the three numbers the reserve reads (config.json's hidden_size, intermediate_size,
// vocab_size), for models vLLM logged that have no preset.
ModelPreset dims(int hidden, int intermediate, int vocab) {
  ModelPreset m;
  m.hidden_size = hidden;
  m.intermediate_size = intermediate;
  m.vocab_size = vocab;
  return m;
}

TEST(ActivationReserve, KnownAnswerForLlama3At8192TokensAnd256Sequences) {
  const ActivationReserve r = derive_activation_reserve(preset("llama-3-8b"), {8192, 256, 1});
  // Forward: 8192 tokens · 2 B · (2·4096 + 3·14336) = 838,860,800 B.
  EXPECT_DOUBLE_EQ(r.forward_bytes, 838'860'800.0);
  // Sampler: the 8192 × 4096 hidden states held (67,108,864 B) + 256 rows × 128,256 logits × 38.3 B.
  EXPECT_DOUBLE_EQ(r.sampler_bytes, 67'108'864.0 + 256.0 * 128'256 * 38.3);
  EXPECT_DOUBLE_EQ(r.non_torch_bytes, 0.13 * kGiB);
  // The sampler phase is the larger: 1.2337 + 0.13 = 1.3637 GiB.
  EXPECT_NEAR(r.total_bytes() / kGiB, 1.3637, 5e-5);
}

TEST(ActivationReserve, GrowsWithTheTokenBudgetAndTheSequenceLimit) {
  const ModelPreset m = preset("llama-3-8b");
  const ActivationReserve a100_defaults = derive_activation_reserve(m, {2048, 256, 1});   // vLLM V1 on an A100
  const ActivationReserve h100_defaults = derive_activation_reserve(m, {8192, 1024, 1});  // and on an H100
  EXPECT_LT(a100_defaults.total_bytes(), h100_defaults.total_bytes());
  EXPECT_NEAR(a100_defaults.total_bytes() / kGiB, 1.3168, 5e-5);
  EXPECT_NEAR(h100_defaults.total_bytes() / kGiB, 4.8771, 5e-5);
  // vLLM samples one row per dummy request, and there are no more requests than tokens.
  EXPECT_DOUBLE_EQ(derive_activation_reserve(m, {64, 256, 1}).sampler_bytes,
                   64.0 * 4096 * 2 + 64.0 * 128'256 * 38.3);
}

TEST(ActivationReserve, SmallVocabularyAndLargeBudgetMakeTheForwardTheLarger) {
  // Mistral-7B (32,768-entry vocabulary) at 16,384 tokens: the MLP's activations,
  // 16384 · 2 · (2·4096 + 3·14336) B = 1.5625 GiB, exceed the sampler's 0.42 GiB.
  const ActivationReserve r = derive_activation_reserve(preset("mistral-7b"), {16384, 256, 1});
  EXPECT_GT(r.forward_bytes, r.sampler_bytes);
  EXPECT_NEAR(r.total_bytes() / kGiB, 1.5625 + 0.13, 1e-9);
}

TEST(ActivationReserve, TensorParallelSplitsTheMlpButNotTheLogits) {
  const ModelPreset m = preset("llama-3-70b");
  const ActivationReserve one = derive_activation_reserve(m, {8192, 1024, 1});
  const ActivationReserve two = derive_activation_reserve(m, {8192, 1024, 2});
  EXPECT_LT(two.forward_bytes, one.forward_bytes);
  EXPECT_DOUBLE_EQ(two.sampler_bytes, one.sampler_bytes);
  EXPECT_DOUBLE_EQ(two.non_torch_bytes, 0.55 * kGiB);  // NCCL and custom all-reduce buffers
}

// The torch peaks vLLM logged ("torch peak memory increase") for models and limits of every kind:
// each within 1 % (vLLM prints two decimals), V0's within 3 %. Sources in docs/simulator.md §3.
struct LoggedPeak {
  const char* what;
  ModelPreset model;
  ProfileRunShape shape;
  double logged_gib;
  double tolerance;
};

TEST(ActivationReserve, TorchPeakMatchesWhatVllmLogged) {
  const LoggedPeak peaks[] = {
      // llm-d/llm-d-benchmark config_explorer/empirical-vllm-memory-results.md: H100, V1 defaults
      // there (8192 tokens, 1024 sequences). Qwen3-0.6B is where the 38.3 B a logit comes from.
      {"Qwen3-0.6B", dims(1024, 3072, 151'936), {8192, 1024, 1}, 5.56, 0.01},
      {"Llama-3.1-8B", preset("llama-3-8b"), {8192, 1024, 1}, 4.76, 0.01},
      {"Qwen3-32B", preset("qwen3-32b"), {8192, 1024, 1}, 5.64, 0.01},
      {"Llama-3.3-70B FP8, TP 2", preset("llama-3-70b"), {8192, 1024, 2}, 4.84, 0.01},
      // A mixture of experts (its forward is not the dense MLP, but the sampler is the peak).
      {"gpt-oss-20b", dims(2880, 2880, 201'088), {8192, 1024, 1}, 7.38, 0.01},
      // vllm-project/vllm#10511: V0 (vLLM 0.6.5), Llama-3-8B on an H100, 8192 tokens, 256 sequences.
      {"Llama-3-8B, V0", preset("llama-3-8b"), {8192, 256, 1}, 1.26, 0.03},
  };
  for (const LoggedPeak& p : peaks) {
    const ActivationReserve r = derive_activation_reserve(p.model, p.shape);
    const double torch_peak_gib = std::max(r.forward_bytes, r.sampler_bytes) / kGiB;
    EXPECT_NEAR(torch_peak_gib / p.logged_gib, 1.0, p.tolerance) << p.what << ": derived " << torch_peak_gib;
  }
}

// The KV cache vLLM allocated beside the weights and this reserve, against the presets' own: llm-d's
// H100 runs at gpu_memory_utilization 0.9 with V1's defaults there (8192 tokens, 1024 sequences)
// logged "Available KV cache memory: 51.38 GiB" for Llama-3.1-8B (26,306 blocks of 2 MiB) and
// 4.45 GiB for Qwen3-32B (1,139 blocks of 4 MiB). A flat 2 GiB gave 27,997 and 2,187.
TEST(ActivationReserve, KvBlocksMatchWhatVllmAllocatedOnAnH100) {
  const ProfileRunShape h100_defaults{8192, 1024, 1};
  const auto blocks = [&](const char* model) {
    const CostModel cost(testing_util::make_config(model, "h100").hardware);
    return cost.num_gpu_blocks(16, 0.9, derive_activation_reserve(preset(model), h100_defaults).total_bytes());
  };
  EXPECT_EQ(blocks("llama-3-8b"), 26335);  // +0.1 %
  EXPECT_EQ(blocks("qwen3-32b"), 1131);    // -0.7 %
}

}  // namespace
}  // namespace sb::sim
