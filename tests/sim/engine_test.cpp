// Virtual-time behaviour of the continuous-batching engine: thousands of requests run in
// milliseconds; every expectation is derived from the cost model's formulas.
#include "sim/engine.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "engine_test_util.hpp"
#include "sim/engine_backend.hpp"
#include "sim/virtual_clock.hpp"

namespace sb::sim {
namespace {

using testing_util::make_config;

VirtualRun closed_loop(const EngineConfig& config, const ClosedLoopSpec& spec, EngineStats* stats = nullptr) {
  EngineBackend backend(config, {});
  VirtualRun run = run_closed_loop(backend, spec);
  if (stats != nullptr) *stats = backend.engine().stats();
  return run;
}

double mean(const std::vector<double>& v) {
  double s = 0;
  for (const double x : v) s += x;
  return v.empty() ? 0.0 : s / static_cast<double>(v.size());
}

TEST(Engine, SingleRequestTimelineMatchesCostModel) {
  EngineConfig config = make_config("llama-3-8b", "h100");
  Engine engine(config);
  std::vector<TokenEvent> events;
  engine.submit({1, 1000, 3, true, 0}, 0);
  const auto first_end = engine.advance(0, events);
  ASSERT_TRUE(first_end.has_value());
  // Prefill of 1000 tokens (cost_model_test: 13,958,653,696 FLOPs a token, 1,050,673,152 for the
  // sampled row, 15,009,326,848 B streamed): compute (13,958,653,696·1000 + 1,050,673,152 +
  // 524288·500500) / (989e12·0.6) = 23.967156 ms, memory (15,009,326,848 + 131072·1000) /
  // (3350e9·0.80) = 5.649403 ms, √(c² + m²) = 24.623979 ms, + 800 µs + 60 µs for the one sequence
  // = 25.483979 ms.
  EXPECT_EQ(*first_end, 25483979);
  EXPECT_TRUE(events.empty());
  const auto second_end = engine.advance(*first_end, events);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_TRUE(events[0].first);
  // What --dialect llama.cpp reports as prompt_ms: scheduled at 0, first token at the prefill's end.
  EXPECT_EQ(events[0].started_ns, 0);
  EXPECT_EQ(events[0].at_ns, 25483979);
  // Decode with 1000 cached tokens: memory (15,009,326,848 + 131072·1001) / 2680e9 = 5.649451 ms,
  // compute 0.026178 ms adds 0.06 µs in quadrature, + 860 µs host = 6.509512 ms.
  EXPECT_EQ(*second_end - *first_end, 6509512);
  events.clear();
  const auto third_end = engine.advance(*second_end, events);
  events.clear();
  EXPECT_FALSE(engine.advance(*third_end, events).has_value());
  ASSERT_EQ(events.size(), 1u);
  EXPECT_TRUE(events[0].finished);
  EXPECT_EQ(engine.stats().generation_tokens, 3u);
  EXPECT_EQ(engine.stats().finished_length, 1u);
  EXPECT_EQ(engine.kv_cache().free_blocks(), engine.kv_cache().total_blocks());
}

TEST(Engine, ThroughputSaturatesAtTheModelPrediction) {
  EngineConfig config = make_config("llama-3-8b", "h100");
  config.scheduler.max_num_seqs = 64;
  const ClosedLoopSpec spec{64, 256, 64, 128, true};
  // Prediction: waves of 64 requests = one prefill step of 64·64 tokens, then 127 decode steps of
  // 64 sequences with on average 64 + 63 cached tokens each.
  const CostModel model(config.hardware);
  StepShape prefill;
  prefill.prefill_tokens = 64 * 64;
  prefill.attention_pairs = 64 * (64.0 * 65 / 2);
  prefill.num_seqs = 64;  // host time per sequence is part of every step
  StepShape decode;
  decode.decode_tokens = 64;
  decode.num_seqs = 64;
  decode.kv_tokens_read = 64 * 127;
  decode.attention_pairs = 64 * 128.0;
  const double wave_s = model.step_cost(prefill).total_s() + 127 * model.step_cost(decode).total_s();
  const double predicted_tok_s = 64 * 128 / wave_s;

  const VirtualRun at_limit = closed_loop(config, spec);
  EXPECT_NEAR(at_limit.output_tokens_per_s() / predicted_tok_s, 1.0, 0.02);
  // Beyond max_num_seqs the extra requests only queue: same throughput, much longer TTFT.
  const VirtualRun overloaded = closed_loop(config, {128, 256, 64, 128, true});
  EXPECT_NEAR(overloaded.output_tokens_per_s() / at_limit.output_tokens_per_s(), 1.0, 0.02);
  EXPECT_GT(mean(overloaded.ttft_s()), 5 * mean(at_limit.ttft_s()));
}

TEST(Engine, ThroughputGrowsLinearlyBelowTheKnee) {
  const EngineConfig config = make_config("llama-3-8b", "h100");
  const double one = closed_loop(config, {1, 8, 64, 64, true}).output_tokens_per_s();
  const double two = closed_loop(config, {2, 16, 64, 64, true}).output_tokens_per_s();
  const double eight = closed_loop(config, {8, 64, 64, 64, true}).output_tokens_per_s();
  // Decode is memory-bound on the weights, so a batch costs almost the same as one sequence; only
  // the host's 60 µs per sequence grows: a step of 8 costs 5.69 + 0.8 + 8·0.06 = 6.97 ms against
  // 6.55 ms for one, so 8 streams give ≈ 8·6.55/6.97 = 7.5x, less the prefills' share.
  EXPECT_GT(two / one, 1.95);
  EXPECT_GT(eight / one, 7.0);
  EXPECT_LT(eight / one, 8.0);
}

TEST(Engine, StaircaseShowsLinearRegionKneeAndOverload) {
  // The demo's shape: llama-3-8b on H100, 512-token prompts, EOS allowed (≤ 128 tokens out).
  const EngineConfig config = make_config("llama-3-8b", "h100");
  std::vector<double> rps;
  std::vector<double> ttft;
  for (const int c : {1, 4, 64, 256, 512, 1024}) {
    const VirtualRun run = closed_loop(config, {c, 4 * c, 512, 128, false});
    rps.push_back(run.requests_per_s());
    ttft.push_back(mean(run.ttft_s()));
  }
  EXPECT_GT(rps[1] / rps[0], 3.0);   // linear region
  EXPECT_GT(rps[3] / rps[2], 1.2);   // still gaining up to max_num_seqs
  EXPECT_LT(rps[5] / rps[4], 1.05);  // flat beyond the knee
  EXPECT_GT(ttft[4], 5 * ttft[3]);   // TTFT rises steeply once requests queue
  EXPECT_GT(ttft[5], 2 * ttft[4]);
}

TEST(Engine, PreemptsWhenKvMemoryIsShort) {
  EngineConfig config = make_config("llama-3-8b", "h100");
  const ClosedLoopSpec spec{16, 48, 32, 128, true};
  config.num_gpu_blocks_override = 64;  // 1024 tokens for 16 sequences growing to 160 each
  EngineStats short_stats;
  const VirtualRun short_run = closed_loop(config, spec, &short_stats);
  EXPECT_GT(short_stats.preemptions, 0u);
  for (const RequestTiming& r : short_run.requests) EXPECT_EQ(r.output_tokens, 128) << r.id;

  config.num_gpu_blocks_override = 0;  // the full H100 budget
  EngineStats ample_stats;
  const VirtualRun ample_run = closed_loop(config, spec, &ample_stats);
  EXPECT_EQ(ample_stats.preemptions, 0u);
  EXPECT_GT(ample_run.output_tokens_per_s(), short_run.output_tokens_per_s());
}

// Decoders stream while long prompts arrive: how much does a prefill stall them?
VirtualRun mixed_load(const EngineConfig& config) {
  std::vector<TimedRequest> reqs;
  for (std::uint64_t i = 0; i < 16; ++i) reqs.push_back({{i, 32, 400, true, i}, 0});
  for (std::uint64_t i = 16; i < 24; ++i) {
    reqs.push_back({{i, 6000, 8, true, i}, static_cast<Nanos>(i - 15) * 300'000'000});
  }
  EngineBackend backend(config, {});
  return run_open_loop(backend, reqs);
}

TEST(Engine, ChunkedPrefillCutsInterTokenStalls) {
  EngineConfig chunked = make_config("llama-3-8b", "h100");
  chunked.scheduler.max_num_batched_tokens = 512;
  EngineConfig whole = make_config("llama-3-8b", "h100");
  whole.scheduler.chunked_prefill = false;
  whole.scheduler.max_num_batched_tokens = 8192;
  const VirtualRun a = mixed_load(chunked);
  const VirtualRun b = mixed_load(whole);
  // A 6000-token prefill in one step (~200 ms) stalls every decoder; 512-token chunks cost ~20 ms.
  EXPECT_LT(percentile(a.itl_s, 100), 0.5 * percentile(b.itl_s, 100));
  EXPECT_GT(percentile(b.itl_s, 100), 0.15);
}

TEST(Engine, SmallerTokenBudgetTradesThroughputForInterTokenLatency) {
  EngineConfig small = make_config("llama-3-8b", "h100");
  small.scheduler.max_num_batched_tokens = 256;
  EngineConfig large = make_config("llama-3-8b", "h100");
  large.scheduler.max_num_batched_tokens = 8192;
  const ClosedLoopSpec spec{32, 128, 2000, 64, true};
  const VirtualRun s = closed_loop(small, spec);
  const VirtualRun l = closed_loop(large, spec);
  EXPECT_LT(s.output_tokens_per_s(), 0.9 * l.output_tokens_per_s());  // more steps, more weight reads
  EXPECT_LT(percentile(s.itl_s, 99), percentile(l.itl_s, 99));        // shorter stalls per step
  EXPECT_GT(mean(s.ttft_s()), mean(l.ttft_s()));                      // prompts take more steps
}

TEST(Engine, EosDrawsOutputLengthsDeterministically) {
  EngineConfig config = make_config("llama-3.2-1b", "l4");
  config.eos_mean_output_tokens = 50;
  EngineStats stats;
  const VirtualRun run = closed_loop(config, {8, 200, 16, 400, false}, &stats);
  int shorter = 0;
  double total = 0;
  for (const RequestTiming& r : run.requests) {
    EXPECT_GE(r.output_tokens, 1);
    EXPECT_LE(r.output_tokens, 400);
    shorter += r.output_tokens < 400 ? 1 : 0;
    total += r.output_tokens;
  }
  EXPECT_GT(shorter, 190);
  EXPECT_NEAR(total / 200, 50, 12);  // exponential with mean 50, clamped
  EXPECT_EQ(stats.finished_stop + stats.finished_length, 200u);
  const VirtualRun again = closed_loop(config, {8, 200, 16, 400, false});
  EXPECT_EQ(again.requests[17].output_tokens, run.requests[17].output_tokens);
}

TEST(Engine, CancelFreesTheSequence) {
  Engine engine(make_config("llama-3-8b", "h100"));
  std::vector<TokenEvent> events;
  engine.submit({1, 100, 50, true, 0}, 0);
  engine.submit({2, 100, 50, true, 0}, 0);
  const auto wake = engine.advance(0, events);
  engine.cancel(1, 10);  // in flight: dropped when the step ends
  engine.advance(*wake, events);
  for (const TokenEvent& e : events) EXPECT_EQ(e.id, 2u);
  EXPECT_EQ(engine.num_running(), 1u);
  EXPECT_EQ(engine.stats().finished_abort, 1u);
}

TEST(Engine, RejectsWhatCannotRun) {
  Engine engine(make_config("llama-3-8b", "h100"));
  std::vector<TokenEvent> events;
  engine.submit({9, 8000, 500, true, 0}, 0);  // beyond max_model_len 8192
  EXPECT_FALSE(engine.advance(0, events).has_value());
  ASSERT_EQ(events.size(), 1u);
  EXPECT_TRUE(events[0].finished);
  EXPECT_EQ(events[0].tokens, 0);

  EngineConfig too_big = make_config("llama-3-70b", "h100", 1);
  EXPECT_THROW(Engine{too_big}, UserError);
  EngineConfig no_chunk = make_config("llama-3-8b", "h100");
  no_chunk.scheduler.chunked_prefill = false;
  no_chunk.scheduler.max_num_batched_tokens = 2048;
  EXPECT_THROW(Engine{no_chunk}, UserError);
}

TEST(Engine, TimeScaleShrinksEveryStep) {
  EngineConfig config = make_config("llama-3-8b", "h100");
  config.time_scale = 10;
  Engine engine(config);
  std::vector<TokenEvent> events;
  engine.submit({1, 1000, 3, true, 0}, 0);
  EXPECT_EQ(*engine.advance(0, events), 2548398);  // 25.483979 ms / 10
}

// The decode block of --num-scheduler-steps costs its steps back to back (each reads one more
// cached token) and delivers their tokens together at its end; a sequence that ends inside a block
// still runs to the block's end (vLLM V0 checks stop conditions when it processes the outputs).
TEST(Engine, MultiStepBlockCostsItsStepsAndDeliversTokensAtItsEnd) {
  EngineConfig config = make_config("llama-3-8b", "h100");
  config.scheduler.chunked_prefill = false;
  config.scheduler.prefill_only_steps = true;
  config.scheduler.num_scheduler_steps = 4;
  Engine engine(config);
  std::vector<TokenEvent> events;
  engine.submit({1, 1000, 6, true, 0}, 0);
  const Nanos prefill_end = *engine.advance(0, events);
  EXPECT_EQ(prefill_end, 25483979);  // a prompt step is one step, as in SingleRequestTimelineMatchesCostModel
  // Step k of a block decodes with 1000 + 4·b + k cached tokens (b: the block's index).
  const auto block_s = [&engine](int first_cached) {
    double sum = 0;
    for (int k = 0; k < 4; ++k) {
      StepShape sh;
      sh.decode_tokens = 1;
      sh.sampled_tokens = 1;
      sh.num_seqs = 1;
      sh.kv_tokens_read = first_cached + k;
      sh.attention_pairs = first_cached + k + 1;
      sum += engine.cost_model().step_cost(sh).total_s();
    }
    return sum;
  };
  const Nanos first_block_ns = static_cast<Nanos>(block_s(1000) * 1e9 + 0.5);
  // Four decodes of SingleRequestTimelineMatchesCostModel's 6.509512 ms, plus 0.05 µs per extra cached token.
  EXPECT_NEAR(static_cast<double>(first_block_ns), 4 * 6509512.0, 1000);
  const Nanos block_end = *engine.advance(prefill_end, events);
  EXPECT_EQ(block_end, prefill_end + first_block_ns);
  ASSERT_EQ(events.size(), 1u);  // the first token, at the prompt step's end
  events.clear();
  const Nanos second_end = *engine.advance(block_end, events);
  ASSERT_EQ(events.size(), 4u);
  for (const TokenEvent& e : events) EXPECT_EQ(e.at_ns, block_end);
  events.clear();
  // Token 6 is the second block's first step; the block still runs all four.
  EXPECT_EQ(second_end, block_end + static_cast<Nanos>(block_s(1004) * 1e9 + 0.5));
  EXPECT_FALSE(engine.advance(second_end, events).has_value());
  ASSERT_EQ(events.size(), 1u);
  EXPECT_TRUE(events[0].finished);
  EXPECT_EQ(events[0].at_ns, second_end);
  EXPECT_EQ(engine.stats().generation_tokens, 6u);
  EXPECT_EQ(engine.stats().steps, 9u);
  EXPECT_EQ(engine.kv_cache().free_blocks(), engine.kv_cache().total_blocks());
}

// A prompt that arrives while a block runs is scheduled when the block ends, not at the next step:
// the TTFT cost of vLLM 0.6.0's multi-step scheduling.
TEST(Engine, MultiStepHoldsANewPromptUntilTheBlockEnds) {
  EngineConfig config = make_config("llama-3-8b", "h100");
  config.scheduler.chunked_prefill = false;
  config.scheduler.prefill_only_steps = true;
  config.scheduler.num_scheduler_steps = 10;
  Engine engine(config);
  std::vector<TokenEvent> events;
  engine.submit({1, 1000, 50, true, 0}, 0);
  const Nanos prefill_end = *engine.advance(0, events);
  const Nanos block_end = *engine.advance(prefill_end, events);
  ASSERT_GT(block_end - prefill_end, 9 * 6546180);  // ten decode steps
  engine.submit({2, 100, 5, true, 0}, prefill_end + 1);
  events.clear();
  EXPECT_EQ(engine.advance(prefill_end + 1, events), block_end);  // nothing happens before it ends
  EXPECT_TRUE(events.empty());
  const Nanos prompt_end = *engine.advance(block_end, events);
  events.clear();
  engine.advance(prompt_end, events);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].id, 2u);
  EXPECT_TRUE(events[0].first);
  EXPECT_EQ(events[0].started_ns, block_end);
}

}  // namespace
}  // namespace sb::sim
