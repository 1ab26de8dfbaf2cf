// Known answers computed by hand from the formulas in sim/cost_model.hpp and the presets' data
// sheets and cost sets (sim/presets.cpp); the arithmetic is in each comment.
#include "sim/cost_model.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "engine_test_util.hpp"

namespace sb::sim {
namespace {

CostModel model_on(const char* model, const char* gpu, int tp = 1) {
  return CostModel(testing_util::make_config(model, gpu, tp).hardware);
}

StepShape one_decode(std::int64_t cached) {
  StepShape s;
  s.decode_tokens = 1;
  s.sampled_tokens = 1;
  s.num_seqs = 1;
  s.attention_pairs = static_cast<double>(cached + 1);
  s.kv_tokens_read = cached;
  return s;
}

StepShape one_prefill(std::int64_t tokens) {
  StepShape s;
  s.prefill_tokens = tokens;
  s.sampled_tokens = 1;
  s.num_seqs = 1;
  s.attention_pairs = static_cast<double>(tokens) * static_cast<double>(tokens + 1) / 2;
  return s;
}

TEST(CostModel, PerTokenSizesFollowTheArchitecture) {
  const CostModel m = model_on("llama-3-8b", "h100");
  EXPECT_DOUBLE_EQ(m.weight_bytes_per_gpu(), 16.06e9);         // 8.03e9 params × 2 B, all resident
  EXPECT_DOUBLE_EQ(m.kv_bytes_per_token_per_gpu(), 131072.0);  // 2·32 layers·8 kv heads·128·2 B
  EXPECT_DOUBLE_EQ(m.attention_flops_per_pair(), 524288.0);    // 4·32·32·128
}

// The embedding table (vocab·hidden = 128256·4096 = 525,336,576 parameters) is a lookup: a step
// streams the other 7,504,663,424 parameters (the lm_head among them) and runs the products of the
// 6,979,326,848 that are neither table nor lm_head for every token, the lm_head for sampled rows.
TEST(CostModel, EmbeddingIsALookupAndTheLmHeadRunsForSampledRowsOnly) {
  const CostModel m = model_on("llama-3-8b", "h100");
  EXPECT_DOUBLE_EQ(m.streamed_bytes_per_gpu(), 15009326848.0);  // (8.03e9 − 525,336,576) × 2 B
  EXPECT_DOUBLE_EQ(m.linear_flops_per_token(), 13958653696.0);   // 2·(8.03e9 − 2·525,336,576)
  EXPECT_DOUBLE_EQ(m.lm_head_flops_per_row(), 1050673152.0);     // 2·525,336,576
  // A 4096-token prompt chunk that does not end its prompt samples nothing: one lm_head row less.
  StepShape mid = one_prefill(4096);
  mid.sampled_tokens = 0;
  const double saved_s = m.step_cost(one_prefill(4096)).compute_s - m.step_cost(mid).compute_s;
  EXPECT_NEAR(saved_s, 1050673152.0 / (989e12 * 0.6), 1e-15);
  // Tied (Llama-3.2-1B: 1.24e9 parameters, 128256·2048 = 262,668,288 of them the shared table):
  // the table is streamed once, for the lm_head; the products skip it per token.
  const CostModel tied = model_on("llama-3.2-1b", "h100");
  EXPECT_DOUBLE_EQ(tied.streamed_bytes_per_gpu(), 2.48e9);
  EXPECT_DOUBLE_EQ(tied.linear_flops_per_token(), 1954663424.0);  // 2·(1.24e9 − 262,668,288)
  EXPECT_DOUBLE_EQ(tied.lm_head_flops_per_row(), 525336576.0);
  // Tensor parallelism splits the table and the lm_head with the rest (vocabulary-parallel).
  const CostModel tp4 = model_on("llama-3-70b", "h100", 4);
  EXPECT_DOUBLE_EQ(tp4.streamed_bytes_per_gpu(), (70.6e9 - 1050673152.0) * 2 / 4);
  EXPECT_DOUBLE_EQ(tp4.lm_head_flops_per_row(), 2.0 * 1050673152.0 / 4);
}

TEST(CostModel, SmoothMaxKnownAnswers) {
  EXPECT_DOUBLE_EQ(smooth_max(3, 4, 2), 5);  // the 3-4-5 triangle
  EXPECT_NEAR(smooth_max(1, 1, 3), std::cbrt(2.0), 1e-15);
  EXPECT_DOUBLE_EQ(smooth_max(7, 0, 3), 7);
  EXPECT_DOUBLE_EQ(smooth_max(0, 0, 3), 0);
  EXPECT_DOUBLE_EQ(smooth_max(2, 9, std::numeric_limits<double>::infinity()), 9);
  // No overflow where aⁿ alone would: (1e300, 1e300, 3) → 1e300·2^(1/3).
  EXPECT_NEAR(smooth_max(1e300, 1e300, 3) / 1e300, std::cbrt(2.0), 1e-12);
}

TEST(CostModel, DecodeAtBatchOneStreamsTheWeightsWithNoFlopFloor) {
  // llama-3-8b on A100-80GB, one token after 1000 cached (the old model put a 13.7 ms FLOP floor,
  // 2·8.03e9·129 / (312e12·0.5), above the 9.3 ms weight stream here):
  // compute = (13,958,653,696 + 1,050,673,152 + 524288·1001) / (312e12·0.57) = 8.734896e-05 s
  // memory  = (15,009,326,848 + 131072·1001) / (2039e9·0.75)                 = 9.900624e-03 s
  // device  = memory·(1 + (compute/memory)²)^(1/2)                           = 9.901010e-03 s
  const StepCost c = model_on("llama-3-8b", "a100").step_cost(one_decode(1000));
  EXPECT_NEAR(c.compute_s, 8.73489605038237e-05, 1e-15);
  EXPECT_NEAR(c.memory_s, 0.00990062443681543, 1e-14);
  EXPECT_NEAR(c.device_s, 0.00990100975051373, 1e-14);
  EXPECT_LT(c.device_s, c.memory_s * 1.0001);  // tile under-use adds nothing to the stream
  EXPECT_EQ(c.comm_s, 0.0);
  // overhead = 800 µs + 60 µs · 1 sequence
  EXPECT_NEAR(c.total_s(), 0.0107610097505137, 1e-14);
}

TEST(CostModel, LargePrefillIsComputeBound) {
  // 4096 prompt tokens on H100, empty cache, the last one sampled: pairs = 4096·4097/2 = 8390656;
  // compute = (13,958,653,696·4096 + 1,050,673,152 + 524288·8390656) / (989e12·0.6) = 0.1037661214 s
  // memory  = (15,009,326,848 + 131072·4096) / (3350e9·0.80)                       = 0.0058008201 s
  // device  = compute·(1 + (memory/compute)²)^(1/2)                                = 0.1039281361 s
  const StepCost c = model_on("llama-3-8b", "h100").step_cost(one_prefill(4096));
  EXPECT_NEAR(c.compute_s, 0.103766121444044, 1e-12);
  EXPECT_NEAR(c.memory_s, 0.00580082005970149, 1e-12);
  EXPECT_NEAR(c.device_s, 0.103928136098485, 1e-12);
}

TEST(CostModel, ShortPromptPrefillOnA100) {
  // The 230-token ShareGPT-sized prefill that took 38.5 ms in the old model (efficiency 0.5 ×
  // 230/358 plus a 1.5 ms step): pairs = 230·231/2 = 26565;
  // compute = (13,958,653,696·230 + 1,050,673,152 + 524288·26565) / (312e12·0.57) = 0.0181369137 s
  // memory  = (15,009,326,848 + 131072·230) / (2039e9·0.75)                       = 0.0098345420 s
  // device  = compute·(1 + (memory/compute)²)^(1/2)                              = 0.0206316712 s; + 860 µs host
  const StepCost c = model_on("llama-3-8b", "a100").step_cost(one_prefill(230));
  EXPECT_NEAR(c.compute_s, 0.018136913708682, 1e-12);
  EXPECT_NEAR(c.device_s, 0.0206316711859925, 1e-12);
  EXPECT_NEAR(c.total_s(), 0.0214916711859925, 1e-12);
}

TEST(CostModel, RidgeCostsAtMostTheSquareRootOfTwo) {
  // Where compute equals memory the two overlap worst: device = 2^(1/2) · either.
  HardwareSetup h = testing_util::make_config("llama-3-8b", "h100").hardware;
  const CostModel m(h);
  // Tokens T (none sampled) at which 13,958,653,696·T/(989e12·0.6) = (15,009,326,848 + 131072·T)/(3350e9·0.80):
  // 2.35232e-5·T = 5.60050e-3 + 4.8907e-8·T → T = 5.60050e-3 / 2.34743e-5 ≈ 238.6
  StepShape s;
  s.decode_tokens = 239;
  s.num_seqs = 239;
  const StepCost c = m.step_cost(s);
  EXPECT_NEAR(c.compute_s / c.memory_s, 1.0, 0.01);
  EXPECT_NEAR(c.device_s / std::max(c.compute_s, c.memory_s), std::sqrt(2.0), 0.01);
  // Away from the ridge the excess shrinks: at 4× the tokens memory/compute ≈ 1/4, so the step is
  // compute·√(1 + 1/16) ≈ 3.1 % over pure compute.
  s.decode_tokens = 4 * 239;
  const StepCost far = m.step_cost(s);
  EXPECT_NEAR(far.device_s / far.compute_s, std::hypot(1.0, far.memory_s / far.compute_s), 1e-12);
  EXPECT_LT(far.device_s / far.compute_s, 1.035);
}

TEST(CostModel, TensorParallelAddsAllReducesAndLosesBandwidth) {
  // llama-3-70b on 4× H100, one decode token with no context:
  // streamed/GPU = (70.6e9 − 128256·8192)·2/4 = 34,774,663,424 B; KV/token/GPU = 2·80·(8/4)·128·2 = 81920 B;
  // bandwidth/GPU = 3350e9·0.80 / (1 + 0.15·3) = 1.848276e12 B/s;
  // memory = (34,774,663,424 + 81920) / 1.848276e12                       = 0.0188146943 s
  // comm   = 2·80·12 µs + 2·80·8192·2 B·2·(3/4) / (450e9·0.7)              = 0.0019324830 s
  const CostModel m = model_on("llama-3-70b", "h100", 4);
  const StepCost c = m.step_cost(one_decode(0));
  EXPECT_DOUBLE_EQ(m.kv_bytes_per_token_per_gpu(), 81920.0);
  EXPECT_NEAR(m.effective_bandwidth(), 1848275862068.9656, 1.0);
  EXPECT_NEAR(c.memory_s, 0.0188146943092537, 1e-12);
  EXPECT_NEAR(c.comm_s, 0.0019324830476190476, 1e-12);
}

TEST(CostModel, AllReduceBytesFollowTheRingFactor) {
  // 1000 tokens: the bandwidth part of comm is 2·80·1000·8192·2·2(TP−1)/TP / (450e9·0.7) s and the
  // latency part 160·12 µs. TP2: ring factor 1 → 8.3220 ms + 1.92 ms; TP4: 1.5 → 12.4830 ms + 1.92 ms.
  StepShape s = one_prefill(1000);
  const double tp2 = model_on("llama-3-70b", "h100", 2).step_cost(s).comm_s;
  const double tp4 = model_on("llama-3-70b", "h100", 4).step_cost(s).comm_s;
  EXPECT_NEAR(tp2, 0.008322031746031746 + 1.92e-3, 1e-12);
  EXPECT_NEAR(tp4, 0.012483047619047619 + 1.92e-3, 1e-12);
  EXPECT_EQ(model_on("llama-3-8b", "h100", 1).step_cost(s).comm_s, 0.0);
}

TEST(CostModel, HostOverheadHasAFixedAndAPerSequencePart) {
  // 64 decoding sequences on H100: 800 µs + 64 · 60 µs = 4.64 ms.
  StepShape s;
  s.decode_tokens = 64;
  s.num_seqs = 64;
  EXPECT_NEAR(model_on("llama-3-8b", "h100").step_cost(s).overhead_s, 4.64e-3, 1e-15);
}

TEST(CostModel, AmdPresetsHaveTheirOwnEfficiencies) {
  // MI300X streams at 0.79 of 5300 GB/s, not NVIDIA's 0.80: llama-3-8b, one token, no context:
  // memory = (15,009,326,848 + 131072) / (5300e9·0.79) = 3.5848e-03 s (3.5400e-03 s at 0.80).
  const StepCost c = model_on("llama-3-8b", "mi300x").step_cost(one_decode(0));
  EXPECT_NEAR(c.memory_s, (15009326848.0 + 131072) / 4187e9, 1e-15);
  EXPECT_NEAR(model_on("llama-3-8b", "mi300x").effective_flops(), 1307e12 * 0.45, 1.0);
}

TEST(CostModel, KvBlocksFromMemoryBudget) {
  // (79.6 GiB·0.9 − 16.06e9 − 2 GiB) / (131072 B·16) = 27997.68 → 27997.
  const double two_gib = 2.0 * 1024 * 1024 * 1024;
  HardwareSetup setup = testing_util::make_config("llama-3-8b", "h100").hardware;
  setup.gpu.mem_gib = 79.6;
  const CostModel m(setup);
  EXPECT_EQ(m.num_gpu_blocks(16, 0.9, two_gib), 27997);
  EXPECT_EQ(m.num_gpu_blocks(16, 0.1, two_gib), 0);  // weights alone exceed 10 % of 80 GB
  EXPECT_EQ(m.num_gpu_blocks(16, 0.9, 1e12), 0);     // a reserve larger than the GPU leaves nothing
}

TEST(CostModel, EmptyStepCostsOnlyTheFixedOverhead) {
  const StepCost c = model_on("llama-3-8b", "h100").step_cost({});
  EXPECT_EQ(c.busy_s(), 0.0);
  EXPECT_DOUBLE_EQ(c.total_s(), 0.8e-3);
}

}  // namespace
}  // namespace sb::sim
