#include "telemetry/server_sample.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "support/test_paths.hpp"
#include "telemetry/server_window.hpp"

namespace sb::telemetry {
namespace {

std::string sample_text(const std::string& rel) {
  std::ifstream in(sb::test_files::source_path(rel));
  EXPECT_TRUE(in) << "cannot open " << rel;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

ServerSample read_file(const std::string& rel, bool with_histograms = true) {
  return read_server_sample(parse_prom_text(sample_text(rel), rel), 42, with_histograms);
}

// tests/data/metrics/make_scrapes.py wrote these: running 6, waiting 2, KV 0.3125, prefix 1200/4800.
TEST(ServerSample, VllmV1NamesAndValues) {
  const ServerSample s = read_file("tests/data/metrics/vllm_v1_scrape.txt");
  EXPECT_EQ(s.at_ns, 42);
  EXPECT_EQ(s.dialect, "vllm");
  EXPECT_EQ(s.waiting, 2.0);
  EXPECT_EQ(s.kv_cache_usage, 0.3125);
  EXPECT_EQ(s.prefix_hits, 1200.0);
  EXPECT_EQ(s.prefix_queries, 4800.0);
  EXPECT_EQ(s.running, 6.0);
  EXPECT_EQ(s.preemptions, 5.0);
  EXPECT_EQ(s.finished, 30.0);  // stop 20 + length 10 + abort 0
  ASSERT_TRUE(s.ttft.has_value());
  EXPECT_GT(s.ttft->count, 0);
  EXPECT_FALSE(s.queue_time.has_value());  // this scrape has no queue-time family
}

TEST(ServerSample, VllmV0ToldApartByItsCacheGauge) {
  const ServerSample s = read_file("tests/data/metrics/vllm_v0_scrape.txt");
  EXPECT_EQ(s.dialect, "vllm_v0");
  EXPECT_EQ(s.running, 3.0);
  EXPECT_EQ(s.waiting, 1.0);
  EXPECT_EQ(s.kv_cache_usage, 0.5);
  EXPECT_EQ(s.generation_tokens, 105.0);
}

TEST(ServerSample, SglangLlamacppTgi) {
  const ServerSample sg = read_file("tests/data/telemetry/sglang_scrape.txt");
  EXPECT_EQ(sg.dialect, "sglang");
  EXPECT_EQ(sg.running, 12.0);
  EXPECT_EQ(sg.waiting, 3.0);
  EXPECT_EQ(sg.kv_cache_usage, 0.42);
  EXPECT_EQ(sg.prefix_hit_rate, 0.25);
  EXPECT_EQ(sg.prompt_tokens, 8192.0);
  ASSERT_TRUE(sg.ttft.has_value());
  EXPECT_EQ(sg.ttft->count, 8.0);

  const ServerSample ll = read_file("tests/data/telemetry/llamacpp_scrape.txt");
  EXPECT_EQ(ll.dialect, "llamacpp");
  EXPECT_EQ(ll.running, 2.0);
  EXPECT_EQ(ll.waiting, 1.0);
  EXPECT_EQ(ll.kv_cache_usage, 0.125);
  EXPECT_EQ(ll.generation_tokens, 3469.0);
  EXPECT_FALSE(ll.preemptions.has_value());

  const ServerSample tgi = read_file("tests/data/telemetry/tgi_scrape.txt");
  EXPECT_EQ(tgi.dialect, "tgi");
  EXPECT_EQ(tgi.running, 5.0);
  EXPECT_EQ(tgi.waiting, 0.0);
  EXPECT_EQ(tgi.finished, 40.0);
  ASSERT_TRUE(tgi.queue_time.has_value());
  EXPECT_EQ(tgi.queue_time->count, 40.0);
}

TEST(ServerSample, PeriodicSamplesLeaveHistogramsOut) {
  const ServerSample s = read_file("tests/data/metrics/vllm_v1_scrape.txt", false);
  EXPECT_TRUE(s.running.has_value());
  EXPECT_FALSE(s.ttft.has_value());
  EXPECT_FALSE(s.queue_time.has_value());
}

// Two engines (data parallel) behind one /metrics: gauges and counters add up, the KV-cache usage
// is their mean, and histogram buckets of equal bounds are merged (still cumulative).
TEST(ServerSample, SeveralEnginesAddUp) {
  const std::string text =
      "vllm:num_requests_running{engine=\"0\"} 3\nvllm:num_requests_running{engine=\"1\"} 5\n"
      "vllm:kv_cache_usage_perc{engine=\"0\"} 0.2\nvllm:kv_cache_usage_perc{engine=\"1\"} 0.6\n"
      "vllm:request_queue_time_seconds_bucket{engine=\"0\",le=\"0.5\"} 1\n"
      "vllm:request_queue_time_seconds_bucket{engine=\"0\",le=\"+Inf\"} 2\n"
      "vllm:request_queue_time_seconds_bucket{engine=\"1\",le=\"0.5\"} 3\n"
      "vllm:request_queue_time_seconds_bucket{engine=\"1\",le=\"+Inf\"} 3\n"
      "vllm:request_queue_time_seconds_count{engine=\"0\"} 2\nvllm:request_queue_time_seconds_count{engine=\"1\"} 3\n"
      "vllm:request_queue_time_seconds_sum{engine=\"0\"} 1.5\nvllm:request_queue_time_seconds_sum{engine=\"1\"} 0.5\n";
  const ServerSample s = read_server_sample(parse_prom_text(text), 0, true);
  EXPECT_EQ(s.dialect, "vllm");
  EXPECT_EQ(s.running, 8.0);
  ASSERT_TRUE(s.kv_cache_usage.has_value());
  EXPECT_DOUBLE_EQ(*s.kv_cache_usage, 0.4);
  ASSERT_TRUE(s.queue_time.has_value());
  ASSERT_EQ(s.queue_time->buckets.size(), 2u);
  EXPECT_EQ(s.queue_time->buckets[0].second, 4.0);
  EXPECT_EQ(s.queue_time->buckets[1].second, 5.0);
  EXPECT_EQ(s.queue_time->count, 5.0);
  EXPECT_EQ(s.queue_time->sum, 2.0);
}

// Found by telemetry_fuzz's long run: a counter of NaN gave a NaN "requests finished" between two
// reads of the same scrape. NaN and infinite samples (the text format allows both) are no reading.
TEST(ServerSample, NanAndInfiniteSamplesAreNoReading) {
  const std::string text =
      "# TYPE vllm:num_requests_running gauge\n"
      "vllm:num_requests_running{engine=\"0\"} NaN\n"
      "vllm:num_requests_waiting{engine=\"0\"} 2\n"
      "# TYPE vllm:kv_cache_usage_perc gauge\n"
      "vllm:kv_cache_usage_perc{engine=\"0\"} +Inf\n"
      "# TYPE vllm:request_success_total counter\n"
      "vllm:request_success_total{engine=\"0\",finished_reason=\"stop\"} NaN\n"
      "# TYPE vllm:time_to_first_token_seconds histogram\n"
      "vllm:time_to_first_token_seconds_bucket{le=\"0.1\"} NaN\n"
      "vllm:time_to_first_token_seconds_bucket{le=\"+Inf\"} 3\n"
      "vllm:time_to_first_token_seconds_count 3\n"
      "vllm:time_to_first_token_seconds_sum 0.2\n";
  const PromScrape scrape = parse_prom_text(text, "nan");
  const ServerSample s = read_server_sample(scrape, 1, true);
  EXPECT_FALSE(s.running.has_value());
  EXPECT_EQ(s.waiting, 2.0);
  EXPECT_FALSE(s.kv_cache_usage.has_value());
  EXPECT_FALSE(s.finished.has_value());
  EXPECT_FALSE(s.ttft.has_value());
  const ServerSample both[] = {s, read_server_sample(scrape, 2, true)};
  const ServerStageMetrics m = server_window(both, 0);
  EXPECT_FALSE(m.requests_finished.has_value());
  EXPECT_FALSE(m.running.has_value());
  EXPECT_FALSE(m.ttft.has_value());
}

TEST(ServerSample, NoKnownNames) {
  const ServerSample s = read_server_sample(parse_prom_text("process_cpu_seconds_total 1.5\n"), 0, true);
  EXPECT_EQ(s.dialect, "unknown");
  EXPECT_FALSE(s.running.has_value());
  EXPECT_FALSE(s.waiting.has_value());
}

// The real vLLM V1 sample beside the repository reads with the same names.
TEST(ServerSample, SharedVllmFixture) {
  SB_REQUIRE_SHARED_FIXTURES();
  std::ifstream in(sb::test_files::shared_fixture("vllm_metrics/vllm_v1_0.12_metrics.txt"));
  std::stringstream ss;
  ss << in.rdbuf();
  const ServerSample s = read_server_sample(parse_prom_text(ss.str()), 0, true);
  EXPECT_EQ(s.dialect, "vllm");
  EXPECT_TRUE(s.running && s.waiting && s.kv_cache_usage && s.preemptions && s.prefix_hits && s.finished);
  EXPECT_TRUE(s.queue_time && s.ttft && s.prefill_time);
}

}  // namespace
}  // namespace sb::telemetry
