// play_stage against known answers: with compute and memory made negligible (a GPU a billion
// times faster than any), every engine step takes exactly the per-step overhead, so each
// request's timings follow from the scheduler's batches by hand.
#include "predict/virtual_client.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "metrics/summarize.hpp"
#include "predict/stage_metrics.hpp"

namespace sb::predict {
namespace {

constexpr Nanos kStepNs = 10'000'000;  // 10 ms of overhead per step, nothing else

sim::EngineConfig overhead_only_engine() {
  sim::EngineConfig c;
  c.hardware.model = {"toy", 1e9, 8, 1024, 8, 8, 128, 4096, 32000, 2, 1, 4096};
  c.hardware.gpu = {"fast", "fast", false, 1e12, 1e15, 80, 1e6, {}};
  c.hardware.cost.step_overhead_us = 10'000;
  c.hardware.cost.seq_overhead_us = 0;  // nothing per sequence either
  return c;
}

PlayedStage closed_loop(int concurrency, int n, int prompt, int output) {
  PlayedStage s;
  s.max_concurrency = concurrency;
  for (int i = 0; i < n; ++i) s.requests.push_back({prompt, output, 0, true, static_cast<std::uint64_t>(i)});
  return s;
}

TEST(VirtualClient, ClosedLoopWavesFollowTheStepCount) {
  // c = 2, 4 requests of 5 tokens: step 1 prefills both (first token at 10 ms), steps 2-5 decode
  // (last token at 50 ms); both finish in the same step, the engine idles, and the replacements
  // start a fresh wave at 50 ms: tokens at 60 ... 100 ms.
  const PlayedOutput out = play_stage(overhead_only_engine(), closed_loop(2, 4, 100, 5));
  ASSERT_EQ(out.records.size(), 4u);
  EXPECT_EQ(out.end_ns, 10 * kStepNs);
  EXPECT_EQ(out.engine_steps, 10u);
  for (std::size_t i = 0; i < 4; ++i) {
    const RequestRecord& r = out.records[i];
    const Nanos start = i < 2 ? 0 : 5 * kStepNs;
    EXPECT_TRUE(r.ok());
    EXPECT_EQ(r.sent_ns, start) << i;
    EXPECT_EQ(r.slot_free_ns, i < 2 ? 0 : start) << i;  // due at 0, sent when a slot freed
    ASSERT_EQ(r.token_ns.size(), 5u);
    for (int k = 0; k < 5; ++k) EXPECT_EQ(r.token_ns[k], start + (k + 1) * kStepNs) << i << " token " << k;
    EXPECT_EQ(r.ttft_ns(), kStepNs);
    EXPECT_EQ(r.latency_ns(), 5 * kStepNs);
    EXPECT_EQ(r.output_tokens, 5);
    EXPECT_EQ(r.finish_reason, FinishReason::length);
  }
  // vLLM's statistics of those records: 20 tokens in 100 ms, TTFT 10 ms, TPOT 10 ms.
  const StageMetrics m = stage_metrics(out.records, out.end_ns);
  EXPECT_DOUBLE_EQ(m.output_throughput, 200.0);
  EXPECT_DOUBLE_EQ(m.ttft_p50_ms, 10.0);
  EXPECT_DOUBLE_EQ(m.tpot_p50_ms, 10.0);
}

TEST(VirtualClient, AnArrivalDuringAStepJoinsTheNextOne) {
  // Request 0 at 0 ms: prefill 0-10, decodes 10-20, 20-30. Request 1 arrives at 25 ms, while the
  // 20-30 step runs: it is prefilled in the step 30-40 (TTFT 15 ms) beside request 0's last decode.
  PlayedStage s;
  s.requests = {{64, 4, 0, true, 1}, {64, 2, 25'000'000, true, 2}};
  const PlayedOutput out = play_stage(overhead_only_engine(), s);
  ASSERT_EQ(out.records[0].token_ns.size(), 4u);
  EXPECT_EQ(out.records[0].token_ns.back(), 4 * kStepNs);
  EXPECT_EQ(out.records[1].sent_ns, 25'000'000);
  EXPECT_EQ(out.records[1].ttft_ns(), 15'000'000);
  EXPECT_EQ(out.records[1].done_ns, 5 * kStepNs);
  EXPECT_EQ(out.end_ns, 5 * kStepNs);
}

TEST(VirtualClient, ConcurrencyLimitHoldsAnOpenLoopArrival) {
  // Both due at 0 with one slot: the second is sent when the first finishes (3 steps).
  PlayedStage s;
  s.max_concurrency = 1;
  s.requests = {{32, 3, 0, true, 1}, {32, 3, 0, true, 2}};
  const PlayedOutput out = play_stage(overhead_only_engine(), s);
  EXPECT_EQ(out.records[1].sent_ns, 3 * kStepNs);
  EXPECT_EQ(out.records[1].slot_free_ns, 3 * kStepNs);
  EXPECT_EQ(out.records[1].queue_ns(), 3 * kStepNs);
  EXPECT_EQ(out.records[1].ttft_ns(), kStepNs);
}

TEST(VirtualClient, RequestLongerThanTheContextFailsAs400) {
  PlayedStage s;
  s.requests = {{5000, 16, 0, true, 1}, {16, 2, 0, true, 2}};  // the toy model's context is 4096
  const PlayedOutput out = play_stage(overhead_only_engine(), s);
  EXPECT_EQ(out.records[0].outcome, Outcome::http_error);
  EXPECT_EQ(out.records[0].http_status, 400);
  EXPECT_TRUE(out.records[0].token_ns.empty());
  EXPECT_TRUE(out.records[1].ok());
  EXPECT_EQ(out.records[1].token_ns.size(), 2u);
}

TEST(VirtualClient, StageMetricsAgreeWithSummarize) {
  // The fit's shortcut must compute what metrics::summarize computes for the same records.
  PlayedStage s = closed_loop(3, 10, 300, 7);
  for (std::size_t i = 0; i < s.requests.size(); ++i) s.requests[i].max_tokens = 3 + static_cast<int>(i % 4) * 5;
  sim::EngineConfig c = overhead_only_engine();
  c.hardware.gpu.peak_tflops = 0.5;  // prefill now costs compute: uneven steps
  const PlayedOutput out = play_stage(c, s);
  SummarizeParams sp;
  sp.num_prompts = static_cast<int>(out.records.size());
  sp.duration_ns = out.end_ns;
  const StageSummary full = summarize(out.records, sp);
  const StageMetrics m = stage_metrics(out.records, out.end_ns);
  EXPECT_NEAR(m.output_throughput, full.output_throughput, 1e-9 * full.output_throughput);
  EXPECT_NEAR(m.ttft_p50_ms, full.ttft.median_ms, 1e-9);
  EXPECT_NEAR(m.tpot_p50_ms, full.tpot.median_ms, 1e-9);
}

}  // namespace
}  // namespace sb::predict
