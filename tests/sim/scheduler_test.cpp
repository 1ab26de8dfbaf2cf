#include "sim/scheduler.hpp"

#include <gtest/gtest.h>

namespace sb::sim {
namespace {

Sequence seq(std::uint64_t id, int prompt, int out = 8) {
  Sequence s;
  s.id = id;
  s.prompt_tokens = prompt;
  s.max_tokens = out;
  s.target_output_tokens = out;
  return s;
}

// Applies a step the way the engine does: KV computed, a token when the chunk reaches the end.
void complete(Scheduler& sched, const StepPlan& plan) {
  for (const ScheduledChunk& c : plan.chunks) {
    Sequence& s = sched.seq(c.slot);
    s.computed += c.tokens;
    if (c.samples) ++s.generated;
  }
}

TEST(Scheduler, ChunksPrefillWithinTheTokenBudget) {
  KvCache kv(1000, 16);
  Scheduler sched({8, 100, true}, kv);
  sched.add(seq(1, 250));
  StepPlan plan;
  sched.schedule(plan, 0);
  ASSERT_EQ(plan.chunks.size(), 1u);
  EXPECT_EQ(plan.chunks[0].tokens, 100);
  EXPECT_FALSE(plan.chunks[0].samples);
  EXPECT_EQ(plan.shape.prefill_tokens, 100);
  EXPECT_DOUBLE_EQ(plan.shape.attention_pairs, 100.0 * 101 / 2);
  complete(sched, plan);
  sched.schedule(plan, 1);
  EXPECT_EQ(plan.chunks[0].tokens, 100);
  // Second chunk attends to 100 cached tokens plus itself: 100·100 + 100·101/2.
  EXPECT_DOUBLE_EQ(plan.shape.attention_pairs, 100.0 * 100 + 100.0 * 101 / 2);
  EXPECT_EQ(plan.shape.kv_tokens_read, 100);
  complete(sched, plan);
  sched.schedule(plan, 2);
  EXPECT_EQ(plan.chunks[0].tokens, 50);
  EXPECT_TRUE(plan.chunks[0].samples);
  complete(sched, plan);
  sched.schedule(plan, 3);
  EXPECT_EQ(plan.shape.decode_tokens, 1);
  EXPECT_EQ(plan.shape.prefill_tokens, 0);
}

TEST(Scheduler, WithoutChunkingALongPromptBlocksTheQueue) {
  KvCache kv(1000, 16);
  Scheduler sched({8, 100, false}, kv);
  sched.add(seq(1, 60));
  sched.add(seq(2, 60));  // does not fit beside #1 in 100 tokens
  sched.add(seq(3, 10));  // FCFS: may not overtake #2
  StepPlan plan;
  sched.schedule(plan, 0);
  ASSERT_EQ(plan.chunks.size(), 1u);
  EXPECT_EQ(sched.num_running(), 1u);
  EXPECT_EQ(sched.num_waiting(), 2u);
}

TEST(Scheduler, RunningDecodesComeFirstAndSeqLimitHolds) {
  KvCache kv(1000, 16);
  Scheduler sched({2, 1000, true}, kv);
  sched.add(seq(1, 10));
  sched.add(seq(2, 10));
  sched.add(seq(3, 10));
  StepPlan plan;
  sched.schedule(plan, 5);
  EXPECT_EQ(plan.chunks.size(), 2u);  // max_num_seqs = 2
  EXPECT_EQ(sched.seq(0).first_scheduled_ns, 5);
  EXPECT_EQ(sched.seq(2).first_scheduled_ns, -1);
  complete(sched, plan);
  sched.schedule(plan, 6);
  EXPECT_EQ(plan.shape.decode_tokens, 2);
  EXPECT_EQ(sched.num_waiting(), 1u);
}

TEST(Scheduler, PreemptsTheNewestWhenBlocksRunOut) {
  // 4 blocks of 4 tokens: two sequences of 8 prompt tokens fill the cache exactly.
  KvCache kv(4, 4);
  Scheduler sched({8, 100, true}, kv);
  sched.add(seq(1, 8));
  sched.add(seq(2, 8));
  StepPlan plan;
  sched.schedule(plan, 0);
  ASSERT_EQ(plan.chunks.size(), 2u);
  complete(sched, plan);
  EXPECT_EQ(kv.free_blocks(), 0);
  // Each now needs a 9th token slot: #1 grows by preempting #2 (the newest), which recomputes.
  sched.schedule(plan, 1);
  EXPECT_EQ(plan.preempted, 1);
  EXPECT_EQ(sched.preemptions(), 1u);
  ASSERT_EQ(plan.chunks.size(), 1u);
  EXPECT_EQ(sched.seq(plan.chunks[0].slot).id, 1u);
  EXPECT_EQ(sched.num_waiting(), 1u);
  EXPECT_EQ(sched.seq(1).computed, 0);  // recompute from scratch
  EXPECT_EQ(sched.seq(1).blocks, 0);
}

// vLLM V1 with prefix caching (its default): the preempted sequence's full blocks stay cached, the
// running one takes the last of them for its next token, and when the queue reaches it again it
// recomputes from the first evicted block on (4 of its 8 computed tokens are found). Without
// prefix caching it recomputes all 9 tokens.
TEST(Scheduler, ResumedSequenceRecomputesOnlyItsEvictedBlocks) {
  for (const bool prefix_caching : {true, false}) {
    SCOPED_TRACE(prefix_caching);
    KvCache kv(4, 4);  // two 8-token prompts fill it
    SchedulerConfig config{8, 100, true};
    config.prefix_caching = prefix_caching;
    Scheduler sched(config, kv);
    const int first = sched.add(seq(1, 8));
    const int second = sched.add(seq(2, 8));
    StepPlan plan;
    sched.schedule(plan, 0);
    complete(sched, plan);  // both: 9 tokens, 8 computed (2 full blocks)
    sched.schedule(plan, 1);
    // #1's 9th token needs a 3rd block: #2, the newest, goes, and #1 takes #2's 2nd block.
    ASSERT_EQ(plan.preempted, 1);
    EXPECT_EQ(kv.cached_blocks(2), prefix_caching ? 1 : 0);
    complete(sched, plan);
    sched.schedule(plan, 2);  // #2 needs 3 blocks (its cached one counts as free): 1 is free
    ASSERT_EQ(plan.chunks.size(), 1u);
    EXPECT_EQ(plan.chunks[0].slot, first);
    sched.retire(first);  // finished: its 3 blocks join the queue behind #2's cached one
    sched.schedule(plan, 3);
    ASSERT_EQ(plan.chunks.size(), 1u);
    EXPECT_EQ(plan.chunks[0].slot, second);
    EXPECT_TRUE(plan.chunks[0].samples);
    const int recomputed = prefix_caching ? 5 : 9;
    const double cached = prefix_caching ? 4 : 0;
    EXPECT_EQ(plan.chunks[0].tokens, recomputed);
    EXPECT_EQ(plan.shape.prefill_tokens, recomputed);
    EXPECT_DOUBLE_EQ(plan.shape.attention_pairs, recomputed * cached + recomputed * (recomputed + 1) / 2.0);
    EXPECT_EQ(sched.seq(second).computed, static_cast<std::int64_t>(cached));
    EXPECT_EQ(sched.seq(second).blocks, 3);
    EXPECT_EQ(kv.free_blocks(), 1);
  }
}

TEST(Scheduler, RemoveAndRetireFreeBlocksAndSlots) {
  KvCache kv(10, 16);
  Scheduler sched({8, 100, true}, kv);
  sched.add(seq(7, 30));
  StepPlan plan;
  sched.schedule(plan, 0);
  EXPECT_EQ(kv.free_blocks(), 8);
  EXPECT_TRUE(sched.remove(7));
  EXPECT_FALSE(sched.remove(7));
  EXPECT_EQ(kv.free_blocks(), 10);
  EXPECT_FALSE(sched.has_work());
  EXPECT_EQ(sched.add(seq(8, 5)), 0);  // slot reused
}

// vLLM V0 without chunked prefill: the step that admits a prompt runs nothing else, so the running
// decoder gets no token in it; the next step is the decodes of both.
TEST(Scheduler, PrefillOnlyStepsStallTheRunningDecodes) {
  KvCache kv(1000, 16);
  Scheduler sched({8, 1000, false, true}, kv);
  sched.add(seq(1, 40));
  StepPlan plan;
  sched.schedule(plan, 0);
  complete(sched, plan);  // #1 decodes from here on
  sched.add(seq(2, 50));
  sched.schedule(plan, 1);
  ASSERT_EQ(plan.chunks.size(), 1u);
  EXPECT_EQ(sched.seq(plan.chunks[0].slot).id, 2u);
  EXPECT_EQ(plan.shape.prefill_tokens, 50);
  EXPECT_EQ(plan.shape.decode_tokens, 0);
  complete(sched, plan);
  sched.schedule(plan, 2);
  EXPECT_EQ(plan.shape.decode_tokens, 2);
  EXPECT_EQ(plan.shape.prefill_tokens, 0);
}

// --num-scheduler-steps 4: a step of decodes alone is a block of 4, with KV for all 4 tokens taken
// up front and no admission until it ends; a prompt step stays a single step.
TEST(Scheduler, MultiStepBlockReservesItsKvAndHoldsAdmissions) {
  KvCache kv(1000, 4);
  Scheduler sched({8, 1000, false, true, 4}, kv);
  sched.add(seq(1, 8));
  StepPlan plan;
  sched.schedule(plan, 0);
  EXPECT_EQ(plan.steps, 1);  // the prompt
  complete(sched, plan);
  EXPECT_EQ(sched.seq(0).blocks, 2);
  sched.schedule(plan, 1);
  EXPECT_EQ(plan.steps, 4);
  EXPECT_EQ(plan.shape.decode_tokens, 1);
  // 8 computed + this step's token + 3 lookahead tokens = 12 tokens = 3 blocks of 4.
  EXPECT_EQ(sched.seq(0).blocks, 3);
  sched.add(seq(2, 8));  // arrives while the block runs: waits for the next schedule
  EXPECT_EQ(sched.num_waiting(), 1u);
  Sequence& s = sched.seq(0);
  s.computed += 4;
  s.generated += 4;
  sched.schedule(plan, 2);
  EXPECT_EQ(plan.steps, 1);
  ASSERT_EQ(plan.chunks.size(), 1u);
  EXPECT_EQ(sched.seq(plan.chunks[0].slot).id, 2u);
}

// With prompts and decodes mixed (chunked prefill, no prefill-only steps) a block still ends at
// its length and the waiting prompt joins at the boundary, in a single step with the decodes.
TEST(Scheduler, MultiStepAdmitsBetweenBlocksWhenStepsAreMixed) {
  KvCache kv(1000, 4);
  Scheduler sched({8, 1000, true, false, 4}, kv);
  sched.add(seq(1, 8));
  StepPlan plan;
  sched.schedule(plan, 0);
  complete(sched, plan);
  sched.schedule(plan, 1);
  EXPECT_EQ(plan.steps, 4);
  sched.add(seq(2, 8));
  Sequence& s = sched.seq(0);
  s.computed += 4;
  s.generated += 4;
  sched.schedule(plan, 2);
  EXPECT_EQ(plan.steps, 1);
  EXPECT_EQ(plan.shape.decode_tokens, 1);
  EXPECT_EQ(plan.shape.prefill_tokens, 8);
}

// V0's watermark: a prompt that would leave under 1 % of the cache free waits while others run
// (their decodes need the blocks), but is admitted once nothing runs, so it can never stall.
TEST(Scheduler, PrefillOnlyWatermarkHoldsAPromptOnlyWhileOthersRun) {
  KvCache kv(200, 16);
  Scheduler sched({8, 4096, false, true}, kv);
  sched.add(seq(1, 16));     // 1 block
  sched.add(seq(2, 3184));   // 199 blocks: leaves 0 free, under the 2-block watermark
  StepPlan plan;
  sched.schedule(plan, 0);
  ASSERT_EQ(plan.chunks.size(), 1u);
  EXPECT_EQ(sched.seq(plan.chunks[0].slot).id, 1u);
  EXPECT_EQ(sched.num_waiting(), 1u);
  sched.retire(plan.chunks[0].slot);  // #1 finishes: nothing runs
  sched.schedule(plan, 1);
  ASSERT_EQ(plan.chunks.size(), 1u);
  EXPECT_EQ(plan.shape.prefill_tokens, 3184);
  EXPECT_EQ(kv.free_blocks(), 1);
}

}  // namespace
}  // namespace sb::sim
