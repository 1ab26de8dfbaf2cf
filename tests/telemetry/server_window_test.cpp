#include "telemetry/server_window.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace sb::telemetry {
namespace {

PromHistogramData hist(std::vector<std::pair<double, double>> buckets, double sum) {
  PromHistogramData h;
  h.buckets = std::move(buckets);
  h.count = h.buckets.back().second;
  h.sum = sum;
  return h;
}

// histogram_quantile by hand: 10 observations, 4 in (0, 0.1], 4 in (0.1, 0.5], 2 above 0.5.
TEST(ServerWindow, HistogramQuantileInterpolatesLikePrometheus) {
  const std::vector<std::pair<double, double>> b{{0.1, 4}, {0.5, 8}, {1.0, 10}, {INFINITY, 10}};
  EXPECT_DOUBLE_EQ(histogram_quantile(0.5, b), 0.1 + 0.4 * (5.0 - 4) / 4);  // rank 5 in the 2nd bucket
  EXPECT_DOUBLE_EQ(histogram_quantile(0.2, b), 0.1 * 2 / 4);                // lowest bucket starts at 0
  EXPECT_DOUBLE_EQ(histogram_quantile(0.99, b), 0.5 + 0.5 * (9.9 - 8) / 2);
  // A rank in +Inf answers the highest finite bound.
  EXPECT_DOUBLE_EQ(histogram_quantile(0.99, {{0.1, 1}, {INFINITY, 10}}), 0.1);
  EXPECT_TRUE(std::isnan(histogram_quantile(0.5, {{0.1, 0}, {INFINITY, 0}})));
}

TEST(ServerWindow, HistogramWindowIsTheDifference) {
  const PromHistogramData start = hist({{0.1, 2}, {0.5, 2}, {INFINITY, 3}}, 1.0);
  const PromHistogramData end = hist({{0.1, 6}, {0.5, 10}, {INFINITY, 11}}, 3.4);
  const auto w = histogram_window(start, end);
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ(w->count, 8);
  EXPECT_DOUBLE_EQ(w->mean_ms, 2.4 / 8 * 1e3);
  // Delta buckets: 4 in (0, 0.1], 4 in (0.1, 0.5], 0 above: the median is 0.1 s.
  EXPECT_DOUBLE_EQ(w->p50_ms, 100);
  EXPECT_DOUBLE_EQ(w->p99_ms, (0.1 + 0.4 * (7.92 - 4) / 4) * 1e3);
  // A counter that went back (restart) or bounds that changed: no answer.
  EXPECT_FALSE(histogram_window(end, start).has_value());
  EXPECT_FALSE(histogram_window(start, hist({{0.2, 6}, {0.5, 10}, {INFINITY, 11}}, 3.4)).has_value());
  // No request during the stage: count 0, no latency.
  const auto idle = histogram_window(end, end);
  ASSERT_TRUE(idle.has_value());
  EXPECT_EQ(idle->count, 0);
}

ServerSample at(Nanos t, double running, double waiting, double finished) {
  ServerSample s;
  s.at_ns = t;
  s.dialect = "vllm";
  s.running = running;
  s.waiting = waiting;
  s.finished = finished;
  s.kv_cache_usage = running / 10;
  return s;
}

TEST(ServerWindow, GaugesBetweenBoundariesCountersAcrossThem) {
  std::vector<ServerSample> s{at(0, 0, 0, 100), at(1, 4, 2, 101), at(2, 4, 0, 104), at(3, 2, 0, 108), at(4, 0, 0, 110)};
  s.front().queue_time = hist({{0.1, 1}, {INFINITY, 1}}, 0.05);
  s.back().queue_time = hist({{0.1, 5}, {INFINITY, 11}}, 2.05);
  s.front().prefix_hits = 10;
  s.front().prefix_queries = 100;
  s.back().prefix_hits = 40;
  s.back().prefix_queries = 200;
  const ServerStageMetrics m = server_window(s, 1);
  EXPECT_EQ(m.dialect, "vllm");
  EXPECT_EQ(m.scrapes, 5);
  EXPECT_EQ(m.failed_scrapes, 1);
  ASSERT_TRUE(m.running && m.waiting && m.kv_cache_usage && m.waiting_share);
  EXPECT_DOUBLE_EQ(m.running->mean, 10.0 / 3);  // the three inside, not the idle boundaries
  EXPECT_EQ(m.running->max, 4);
  EXPECT_EQ(m.running->samples, 3);
  EXPECT_DOUBLE_EQ(m.waiting->mean, 2.0 / 3);
  EXPECT_DOUBLE_EQ(*m.waiting_share, 1.0 / 3);
  EXPECT_DOUBLE_EQ(m.kv_cache_usage->max, 0.4);
  EXPECT_EQ(m.requests_finished, 10);
  EXPECT_DOUBLE_EQ(*m.prefix_cache_hit_rate, 0.3);
  ASSERT_TRUE(m.queue_time.has_value());
  EXPECT_EQ(m.queue_time->count, 10);
  EXPECT_DOUBLE_EQ(m.queue_time->mean_ms, 200);
  EXPECT_FALSE(m.preemptions.has_value());  // not exposed
  EXPECT_FALSE(m.ttft.has_value());
}

TEST(ServerWindow, CounterResetIsNoDelta) {
  const std::vector<ServerSample> s{at(0, 0, 0, 100), at(1, 1, 0, 3)};
  EXPECT_FALSE(server_window(s, 0).requests_finished.has_value());
}

StageSummary client_stage(bool open_loop, double client_queue_median_ms) {
  StageSummary c;
  if (open_loop) c.load.request_rate = 10;
  c.client_queue_time.median_ms = client_queue_median_ms;
  return c;
}

ServerStageMetrics server_with(double waiting_share, double waiting_max, int samples = 10) {
  ServerStageMetrics m;
  m.waiting_share = waiting_share;
  m.waiting = GaugeStats{waiting_share * waiting_max, waiting_max, samples};
  return m;
}

TEST(ServerWindow, QueueSide) {
  // Closed loop at a concurrency the server does not run at once: it queues, the client does not.
  EXPECT_EQ(queue_side(client_stage(false, 500), server_with(0.8, 4)), QueueSide::server_queued);
  EXPECT_EQ(queue_side(client_stage(false, 500), server_with(0.0, 0)), QueueSide::agree);
  // Open loop held back in the client while the server had nothing waiting.
  EXPECT_EQ(queue_side(client_stage(true, 20), server_with(0.0, 0)), QueueSide::client_queued);
  EXPECT_EQ(queue_side(client_stage(true, 20), server_with(0.5, 3)), QueueSide::agree);    // both queued
  EXPECT_EQ(queue_side(client_stage(true, 0.1), server_with(0.05, 1)), QueueSide::agree);  // below the share
  EXPECT_EQ(queue_side(client_stage(true, 0.1), ServerStageMetrics{}), QueueSide::agree);  // no waiting gauge
}

TEST(ServerWindow, OneScrapeThatCaughtARequestWaitingIsNoQueue) {
  // A short closed-loop stage of 5 scrapes, one of which saw a request not yet admitted: share 0.2.
  EXPECT_EQ(queue_side(client_stage(false, 0), server_with(0.2, 1, 5)), QueueSide::agree);
  // Two of 10 did: the same share, now from two scrapes.
  EXPECT_EQ(queue_side(client_stage(false, 0), server_with(0.2, 1, 10)), QueueSide::server_queued);
  // Two of 40 are below the share.
  EXPECT_EQ(queue_side(client_stage(false, 0), server_with(0.05, 1, 40)), QueueSide::agree);
}

}  // namespace
}  // namespace sb::telemetry
