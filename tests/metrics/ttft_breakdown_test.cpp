// TTFT split into server queue, server prefill and the rest (metrics/ttft_breakdown.hpp), on
// records with known times.
#include "metrics/ttft_breakdown.hpp"

#include <gtest/gtest.h>

#include "metrics/summarize.hpp"

namespace sb {
namespace {

// Sent at 1 ms, first token at 1 + ttft ms; the server said its prefill took prefill_ms (< 0: said nothing).
RequestRecord timed_request(double ttft_ms, float prefill_ms) {
  RequestRecord r;
  r.sent_ns = 1'000'000;
  r.token_ns = {r.sent_ns + static_cast<Nanos>(ttft_ms * 1e6), r.sent_ns + static_cast<Nanos>(ttft_ms * 1e6) + 5'000'000};
  r.output_tokens = 2;
  r.server.prefill_ms = prefill_ms;
  return r;
}

TEST(TtftBreakdown, PerRequestMeansAddUpAndTheMedianRestIgnoresOneStall) {
  // Rests 0.5, 0.25, 0.5 and a 30 ms stall: mean rest 7.8125, median 0.5.
  const std::vector<RequestRecord> rs = {timed_request(10.5, 10), timed_request(20.25, 20), timed_request(12.5, 12),
                                         timed_request(40, 10)};
  const auto b = ttft_breakdown(rs);
  ASSERT_TRUE(b);
  EXPECT_EQ(b->source, TtftSource::per_request);
  EXPECT_EQ(b->requests, 4);
  EXPECT_EQ(b->covered, 1.0);
  EXPECT_DOUBLE_EQ(b->client_ttft_mean_ms, (10.5 + 20.25 + 12.5 + 40) / 4);
  EXPECT_DOUBLE_EQ(b->server_prefill_mean_ms, 13.0);
  EXPECT_DOUBLE_EQ(b->rest_mean_ms, (0.5 + 0.25 + 0.5 + 30) / 4);
  ASSERT_TRUE(b->rest_median_ms);
  EXPECT_DOUBLE_EQ(*b->rest_median_ms, 0.5);
  EXPECT_FALSE(b->server_queue_mean_ms);  // llama.cpp's timings have none
}

TEST(TtftBreakdown, OnlyRequestsWithTimingsCountAndCoverageSaysHowMany) {
  RequestRecord failed = timed_request(5, 4);
  failed.outcome = Outcome::http_error;  // a failure counts nowhere
  const std::vector<RequestRecord> rs = {timed_request(10, 9), timed_request(30, -1), failed};
  const auto b = ttft_breakdown(rs);
  ASSERT_TRUE(b);
  EXPECT_EQ(b->requests, 1);
  EXPECT_DOUBLE_EQ(b->covered, 0.5);
  EXPECT_DOUBLE_EQ(b->client_ttft_mean_ms, 10);  // the untimed request's 30 ms is not mixed in
  EXPECT_DOUBLE_EQ(b->rest_mean_ms, 1);
}

TEST(TtftBreakdown, NoTimingsNoBreakdown) {
  EXPECT_FALSE(ttft_breakdown({timed_request(10, -1)}));
  RequestRecord whole = timed_request(10, 4);
  whole.token_source = TokenSource::usage_body;  // non-streaming: its TTFT holds the decode too
  EXPECT_FALSE(ttft_breakdown({whole}));
  EXPECT_FALSE(ttft_breakdown({}));
}

TEST(TtftBreakdown, FromHistogramMeansTheQueueIsSubtractedToo) {
  const auto b = ttft_breakdown_from_means(100, {.queue_ms = 30, .prefill_ms = 60, .requests = 50});
  ASSERT_TRUE(b);
  EXPECT_EQ(b->source, TtftSource::metrics_histograms);
  EXPECT_EQ(b->requests, 50);
  EXPECT_DOUBLE_EQ(b->rest_mean_ms, 10);
  EXPECT_FALSE(b->rest_median_ms);  // means only: no per-request rest
  EXPECT_FALSE(ttft_breakdown_from_means(100, {.queue_ms = 30, .prefill_ms = std::nullopt, .requests = 0}));
}

TEST(TtftBreakdown, SummarizeFillsItPerStage) {
  SummarizeParams p;
  p.num_prompts = 2;
  const StageSummary s = summarize({timed_request(10.5, 10), timed_request(20.5, 20)}, p);
  ASSERT_TRUE(s.ttft_breakdown);
  EXPECT_DOUBLE_EQ(s.ttft_breakdown->client_ttft_mean_ms, s.ttft.mean_ms);
  EXPECT_DOUBLE_EQ(s.ttft_breakdown->rest_mean_ms, 0.5);
  EXPECT_FALSE(s.prompt_cache);  // no cached counts reported
}

}  // namespace
}  // namespace sb
