// Tests for src/metrics/summarize.cpp on hand-built timestamp sequences; every expected value is
// worked out by hand in the comments (times in ms relative to the stage t0).
#include "metrics/summarize.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace sb {
namespace {

constexpr Nanos ms(double v) { return static_cast<Nanos>(v * 1e6); }

RequestRecord ok_record(double intended, double sent, std::vector<double> tokens_ms, double done) {
  RequestRecord r;
  r.intended_ns = ms(intended);
  r.sent_ns = ms(sent);
  r.first_byte_ns = ms(tokens_ms.front() - 1);
  for (double t : tokens_ms) r.token_ns.push_back(ms(t));
  r.done_ns = ms(done);
  r.output_tokens = static_cast<int>(tokens_ms.size());
  r.token_source = TokenSource::usage_chunk;
  return r;
}

// Open loop at 2 req/s (intended every 500 ms), duration 2000 ms:
//   R0 sent 0    tokens 100 150 200 250   done 260   prompt 10 (dataset 10) max_tokens 4
//   R1 sent 510  tokens 710 1010 1310 1610 done 1620 prompt 12 (dataset 11) max_tokens 5
//   R2 sent 1000 HTTP 503 at 1600
//   R3 sent 1502 token 1602               done 1700  prompt 20 (dataset 20) max_tokens 8
std::vector<RequestRecord> open_loop_records() {
  std::vector<RequestRecord> v;
  v.push_back(ok_record(0, 0, {100, 150, 200, 250}, 260));
  v.back().dataset_prompt_tokens = v.back().prompt_tokens = 10;
  v.back().expected_output_tokens = 4;
  v.push_back(ok_record(500, 510, {710, 1010, 1310, 1610}, 1620));
  v.back().dataset_prompt_tokens = 11;
  v.back().prompt_tokens = 12;
  v.back().expected_output_tokens = 5;
  v.back().token_source = TokenSource::usage_in_choice;
  RequestRecord failed;
  failed.index = 2;
  failed.outcome = Outcome::http_error;
  failed.http_status = 503;
  failed.error = "Service Unavailable";
  failed.intended_ns = ms(1000);
  failed.sent_ns = ms(1000);
  failed.done_ns = ms(1600);
  failed.dataset_prompt_tokens = 30;
  v.push_back(failed);
  v.push_back(ok_record(1500, 1502, {1602}, 1700));
  v.back().dataset_prompt_tokens = v.back().prompt_tokens = 20;
  v.back().expected_output_tokens = 8;
  v.back().token_source = TokenSource::tokenizer;
  return v;
}

SummarizeParams open_loop_params() {
  SummarizeParams p;
  p.stage_index = 3;
  p.load.request_rate = 2;
  p.num_prompts = 4;
  p.duration_ns = ms(2000);
  p.anchor = {5'000'000'000, 1'700'000'000'000'000'000};
  p.t0_ns = 6'000'000'000;  // 1 s after the anchor
  p.saturation_lag_ms = 5;
  p.goodput_slo_ms = {{"ttft", 150}, {"tpot", 100}};
  return p;
}

TEST(Summarize, OpenLoopCountersAndThroughputs) {
  const StageSummary s = summarize(open_loop_records(), open_loop_params());
  EXPECT_EQ(s.stage_index, 3u);
  EXPECT_EQ(s.sent, 4);
  EXPECT_EQ(s.completed, 3);
  EXPECT_EQ(s.failed, 1);
  EXPECT_DOUBLE_EQ(s.duration_s, 2.0);
  EXPECT_EQ(s.total_input_tokens, 42);   // 10 + 12 (usage beats dataset 11) + 20; failed excluded
  EXPECT_EQ(s.total_output_tokens, 9);   // 4 + 4 + 1
  EXPECT_DOUBLE_EQ(s.request_throughput, 1.5);
  EXPECT_DOUBLE_EQ(s.output_throughput, 4.5);
  EXPECT_DOUBLE_EQ(s.total_token_throughput, 25.5);  // 51 / 2
  // Good: R0 (ttft 100, tpot 50) and R3 (ttft 100, tpot 0: one token); R1 has ttft 200 > 150.
  ASSERT_TRUE(s.request_goodput.has_value());
  EXPECT_DOUBLE_EQ(*s.request_goodput, 1.0);
  // Bins from t_min = 0: [0,1 s) holds 100 150 200 250 710 = 5; [1,2 s) holds 1010 1310 1610 1602.
  EXPECT_EQ(s.max_output_tokens_per_s, 5);
  // Successful spans [0,250) [510,1610) [1502,1602): R1 and R3 overlap -> 2.
  EXPECT_EQ(s.max_concurrent_requests, 2);
  EXPECT_DOUBLE_EQ(s.start_unix_s, 1'700'000'001.0);
  EXPECT_DOUBLE_EQ(s.end_unix_s, 1'700'000'003.0);
}

TEST(Summarize, OpenLoopLatencies) {
  const StageSummary s = summarize(open_loop_records(), open_loop_params());
  // TTFT 100 200 100: mean 133.33, median 100, std sqrt((3 * 33.3^2 ...)/3) = 47.14, p99 h=1.98
  // -> 100 + 0.98 * 100 = 198.
  EXPECT_NEAR(s.ttft.mean_ms, 133.3333333, 1e-6);
  EXPECT_NEAR(s.ttft.median_ms, 100, 1e-9);
  EXPECT_NEAR(s.ttft.std_ms, 47.1404521, 1e-6);
  EXPECT_NEAR(s.ttft.percentile_ms(99), 198, 1e-9);
  EXPECT_EQ(s.ttft.count, 3u);
  // TPOT only for > 1 token: (250-100)/3 = 50 and (1610-710)/3 = 300; p99 = 50 + 0.99 * 250.
  EXPECT_EQ(s.tpot.count, 2u);
  EXPECT_NEAR(s.tpot.mean_ms, 175, 1e-9);
  EXPECT_NEAR(s.tpot.percentile_ms(99), 297.5, 1e-9);
  // ITL pooled: 50 50 50 300 300 300 -> mean 175, median (50+300)/2 = 175, std 125, p99 300.
  EXPECT_EQ(s.itl.count, 6u);
  EXPECT_NEAR(s.itl.mean_ms, 175, 1e-9);
  EXPECT_NEAR(s.itl.median_ms, 175, 1e-9);
  EXPECT_NEAR(s.itl.std_ms, 125, 1e-9);
  EXPECT_NEAR(s.itl.percentile_ms(99), 300, 1e-9);
  // E2EL to the last token: 250 1100 100 -> mean 483.33, median 250, p99 250 + 0.98 * 850 = 1083.
  EXPECT_NEAR(s.e2el.mean_ms, 483.3333333, 1e-6);
  EXPECT_NEAR(s.e2el.median_ms, 250, 1e-9);
  EXPECT_NEAR(s.e2el.percentile_ms(99), 1083, 1e-9);
  // Summaries always hold 50/90/95/99 besides the requested (default 99).
  ASSERT_EQ(s.ttft.percentiles_ms.size(), 4u);
  EXPECT_EQ(s.ttft.percentiles_ms[1].first, 90);
}

TEST(Summarize, OpenLoopScheduleAndQueue) {
  const StageSummary s = summarize(open_loop_records(), open_loop_params());
  // Lag over every sent request: 0 10 0 2 -> sorted 0 0 2 10: p50 1, p99 2 + 0.97 * 8, max 10.
  ASSERT_TRUE(s.schedule_lag.has_value());
  EXPECT_NEAR(s.schedule_lag->p50_ms, 1, 1e-9);
  EXPECT_NEAR(s.schedule_lag->p99_ms, 9.76, 1e-9);
  EXPECT_NEAR(s.schedule_lag->max_ms, 10, 1e-9);
  EXPECT_TRUE(s.client_saturated);  // 9.76 > 5
  // Queue (successful only): 0 10 2 -> mean 4, median 2. Incl. queue E2EL: 250 1110 102.
  EXPECT_NEAR(s.client_queue_time.mean_ms, 4, 1e-9);
  EXPECT_NEAR(s.client_queue_time.median_ms, 2, 1e-9);
  EXPECT_NEAR(s.e2el_including_client_queue.mean_ms, 487.3333333, 1e-6);
  // From intended: TTFT 100 210 102, E2EL 250 1110 102.
  ASSERT_TRUE(s.ttft_from_intended && s.e2el_from_intended);
  EXPECT_NEAR(s.ttft_from_intended->mean_ms, 137.3333333, 1e-6);
  EXPECT_NEAR(s.ttft_from_intended->median_ms, 102, 1e-9);
  EXPECT_NEAR(s.e2el_from_intended->median_ms, 250, 1e-9);
  // In flight over [sent, done): 260 + 1110 + 600 + 198 = 2168 ms busy / 2000 ms; R1 R2 R3 overlap
  // in [1502, 1600) -> 3 (the failed request counts here, unlike max_concurrent_requests).
  EXPECT_NEAR(s.in_flight_mean, 1.084, 1e-12);
  EXPECT_EQ(s.in_flight_max, 3);
}

TEST(Summarize, ErrorsLengthsAndTokenSource) {
  const StageSummary s = summarize(open_loop_records(), open_loop_params());
  ASSERT_EQ(s.errors.size(), 1u);
  const ErrorCategory& e = s.errors.at("http_error");
  EXPECT_EQ(e.count, 1);
  EXPECT_EQ(e.sample, "Service Unavailable");
  EXPECT_EQ(e.http_statuses.at(503), 1);
  EXPECT_EQ(s.token_count_source, "mixed");  // usage, usage, tokenizer
  // Input requested 10 11 20 (mean 13.67, p50 11), delivered 10 12 20 (p99 12 + 0.98 * 8).
  EXPECT_NEAR(s.input_requested.mean, 41.0 / 3, 1e-12);
  EXPECT_EQ(s.input_requested.p50, 11);
  EXPECT_EQ(s.input_delivered.mean, 14);
  EXPECT_NEAR(s.input_delivered.p99, 19.84, 1e-12);
  // Output requested 4 5 8, delivered 4 4 1.
  EXPECT_NEAR(s.output_requested.mean, 17.0 / 3, 1e-12);
  EXPECT_EQ(s.output_delivered.mean, 3);
  EXPECT_EQ(s.output_delivered.p50, 4);
}

TEST(Summarize, GoodputOnE2elAndSaturationThreshold) {
  SummarizeParams p = open_loop_params();
  p.goodput_slo_ms = {{"e2el", 200}};  // E2EL 250 1100 100: only R3 is good -> 1 / 2 s
  p.saturation_lag_ms = 9.76;          // lag p99 is exactly 9.76: not above the threshold
  const StageSummary s = summarize(open_loop_records(), p);
  EXPECT_DOUBLE_EQ(*s.request_goodput, 0.5);
  EXPECT_FALSE(s.client_saturated);
}

TEST(Summarize, ClosedLoopHasNoScheduleFigures) {
  // Concurrency 1, closed loop: intended 0 for all; queue = sent time.
  std::vector<RequestRecord> v;
  v.push_back(ok_record(0, 0, {40, 60}, 61));
  v.push_back(ok_record(0, 61, {101, 121, 141}, 142));
  RequestRecord unsent;
  unsent.outcome = Outcome::cancelled;
  unsent.was_sent = false;
  v.push_back(unsent);
  SummarizeParams p;
  p.load.max_concurrency = 1;
  p.num_prompts = 3;
  p.aborted = true;
  const StageSummary s = summarize(v, p);
  EXPECT_EQ(s.sent, 2);
  EXPECT_EQ(s.completed, 2);
  EXPECT_EQ(s.failed, 0);
  EXPECT_TRUE(s.errors.empty());
  EXPECT_DOUBLE_EQ(s.duration_s, 0.142);  // no duration given: last completion
  EXPECT_FALSE(s.schedule_lag.has_value());
  EXPECT_FALSE(s.ttft_from_intended.has_value());
  EXPECT_FALSE(s.client_saturated);
  EXPECT_FALSE(s.request_goodput.has_value());
  EXPECT_NEAR(s.client_queue_time.mean_ms, 30.5, 1e-9);  // 0 and 61
  EXPECT_EQ(s.max_concurrent_requests, 1);  // [0,60) then [61,141)
  EXPECT_EQ(s.in_flight_max, 1);            // [0,61) and [61,142): departure before arrival
  EXPECT_EQ(s.token_count_source, "usage");
  EXPECT_TRUE(s.aborted);
}

TEST(Summarize, BackToBackSpansAndSecondBoundary) {
  // Token exactly at 1000 ms falls in the second bin: bins [0,1 s) = 1, [1 s,2 s) = 2.
  std::vector<RequestRecord> v;
  v.push_back(ok_record(0, 0, {999, 1000, 1500}, 1500));
  const StageSummary s = summarize(v, SummarizeParams{});
  EXPECT_EQ(s.max_output_tokens_per_s, 2);
  EXPECT_EQ(s.itl.count, 2u);
  EXPECT_NEAR(s.itl.percentile_ms(50), 250.5, 1e-9);  // 1 and 500
}

TEST(Summarize, EmptyStageIsAllZero) {
  const StageSummary s = summarize({}, SummarizeParams{});
  EXPECT_EQ(s.completed, 0);
  EXPECT_EQ(s.duration_s, 0);
  EXPECT_EQ(s.request_throughput, 0);
  EXPECT_EQ(s.ttft.mean_ms, 0);
  EXPECT_EQ(s.max_concurrent_requests, 0);
  EXPECT_EQ(s.token_count_source, "none");
}

TEST(Summarize, OkWithoutTokensCountsAsNoTokensFailure) {
  RequestRecord r;
  r.done_ns = ms(5);
  r.error = "";
  const StageSummary s = summarize({r}, SummarizeParams{});
  EXPECT_EQ(s.failed, 1);
  EXPECT_EQ(s.errors.at("no_tokens").count, 1);
}

}  // namespace
}  // namespace sb
