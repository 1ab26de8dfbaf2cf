#include "target/prom_text.hpp"

#include <cmath>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>

#include "core/error.hpp"
#include "support/test_paths.hpp"

namespace sb {
namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in) << "cannot open " << path;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Third-party scrapes beside the repository (tests/support/test_paths.hpp): compared where they exist.
std::string fixture(const std::string& name) { return read_text(sb::test_files::shared_fixture("vllm_metrics/" + name)); }

// Our own scrapes in vLLM's layout (tests/data/metrics/make_scrapes.py): always there. The expected
// numbers below follow from the workload at the top of that script.
std::string own_scrape(const std::string& name) {
  return read_text(sb::test_files::source_path("tests/data/metrics/" + name));
}

TEST(PromText, ParsesOwnVllmV1Scrape) {
  const PromScrape s = parse_prom_text(own_scrape("vllm_v1_scrape.txt"), "v1");
  EXPECT_EQ(s.samples.size(), 116u);  // grep -c -v '^#'
  EXPECT_EQ(s.types.size(), 27u);     // grep -c '^# TYPE'
  const LabelFilter model = {{"model_name", "acme/tiny-chat-7b"}, {"engine", "0"}};
  EXPECT_EQ(*s.sum("vllm:num_requests_running", model), 6.0);
  EXPECT_EQ(*s.sum("vllm:num_requests_waiting", model), 2.0);
  EXPECT_EQ(*s.sum("vllm:kv_cache_usage_perc"), 0.3125);
  EXPECT_EQ(s.find("vllm:request_success_total", {{"finished_reason", "length"}})->value, 10.0);
  EXPECT_EQ(*s.sum("vllm:request_success_total"), 30.0);  // stop 20 + length 10 + abort 0
  EXPECT_EQ(*s.sum("vllm:prefix_cache_hits_total") / *s.sum("vllm:prefix_cache_queries_total"), 0.25);
  EXPECT_EQ(s.find("vllm:prefix_cache_queries_created")->value, 1764547200.25);
  EXPECT_EQ(s.types.at("vllm:num_preemptions_total"), "counter");
  EXPECT_EQ(s.types.at("vllm:num_preemptions_created"), "gauge");
  EXPECT_EQ(s.types.at("vllm:iteration_tokens_total"), "histogram");  // a histogram whose name ends in _total
  EXPECT_EQ(*s.find("vllm:cache_config_info")->label("num_gpu_blocks"), "4096");
  EXPECT_EQ(s.find("http_requests_total", {{"handler", "/metrics"}})->value, 9.0);
  EXPECT_EQ(s.find("python_gc_objects_collected_total", {{"generation", "1"}})->value, 678.0);
  EXPECT_FALSE(s.sum("vllm:gpu_cache_usage_perc").has_value());  // V0 name is gone in V1

  const auto ttft = s.histogram("vllm:time_to_first_token_seconds", model);
  ASSERT_TRUE(ttft.has_value());
  ASSERT_EQ(ttft->buckets.size(), 23u);  // 22 bounds + +Inf
  EXPECT_EQ(ttft->buckets[7].first, 0.1);
  EXPECT_EQ(ttft->buckets[7].second, 10.0);  // TTFTs 0.01..0.10 s
  EXPECT_EQ(ttft->buckets[8].second, 25.0);  // ... ..0.25 s
  EXPECT_TRUE(std::isinf(ttft->buckets.back().first));
  EXPECT_EQ(ttft->buckets.back().second, 30.0);
  EXPECT_EQ(ttft->count, 30.0);
  EXPECT_DOUBLE_EQ(ttft->sum, 4.65);  // 0.01 * (1 + ... + 30)
  const auto itl = s.histogram("vllm:inter_token_latency_seconds");
  ASSERT_TRUE(itl.has_value());
  EXPECT_EQ(itl->buckets[1].second, 100.0);  // le=0.025: the 100 steady gaps
  EXPECT_EQ(itl->buckets[7].second, 105.0);  // le=0.3: the 5 stalls join
  const auto steps = s.histogram("vllm:iteration_tokens_total");
  ASSERT_TRUE(steps.has_value());
  EXPECT_EQ(steps->count, 12.0);
  EXPECT_EQ(steps->sum, 3071.0);
  EXPECT_FALSE(s.histogram("vllm:num_requests_running").has_value());
}

TEST(PromText, ParsesOwnVllmV0LegacyScrape) {
  const PromScrape s = parse_prom_text(own_scrape("vllm_v0_scrape.txt"), "v0");
  EXPECT_EQ(s.samples.size(), 55u);
  EXPECT_EQ(*s.sum("vllm:gpu_cache_usage_perc"), 0.5);
  EXPECT_EQ(*s.sum("vllm:generation_tokens_total"), 105.0);
  EXPECT_EQ(*s.sum("vllm:avg_generation_throughput_toks_per_s"), 412.5);
  EXPECT_EQ(s.find("vllm:num_requests_running")->label("engine"), nullptr);  // V0 had no engine label
  const auto ttft = s.histogram("vllm:time_to_first_token_seconds");
  ASSERT_TRUE(ttft.has_value());
  EXPECT_EQ(ttft->count, 10.0);
  EXPECT_DOUBLE_EQ(ttft->sum, 0.55);
  const auto tpot = s.histogram("vllm:time_per_output_token_seconds");
  ASSERT_TRUE(tpot.has_value());
  EXPECT_EQ(tpot->count, 50.0);
}

TEST(PromText, ParsesVllmV1Scrape) {
  SB_REQUIRE_SHARED_FIXTURES();
  const PromScrape s = parse_prom_text(fixture("vllm_v1_0.12_metrics.txt"), "v1");
  EXPECT_EQ(s.samples.size(), 324u);  // grep -c -v '^#'
  EXPECT_EQ(s.types.size(), 56u);     // grep -c '^# TYPE'
  const LabelFilter model = {{"model_name", "meta-llama/Llama-3.1-8B-Instruct"}, {"engine", "0"}};
  EXPECT_EQ(*s.sum("vllm:num_requests_running", model), 24.0);
  EXPECT_EQ(*s.sum("vllm:kv_cache_usage_perc"), 0.4172161172161172);
  EXPECT_EQ(s.find("vllm:request_success_total", {{"finished_reason", "length"}})->value, 32.0);
  EXPECT_EQ(*s.sum("vllm:request_success_total"), 40.0);  // stop 8 + length 32 + abort 0
  EXPECT_EQ(s.find("vllm:prefix_cache_queries_created")->value, 1.7636470124177866e+09);
  EXPECT_EQ(s.types.at("vllm:iteration_tokens_total"), "histogram");
  EXPECT_EQ(*s.find("vllm:cache_config_info")->label("num_gpu_blocks"), "27304");
  EXPECT_EQ(s.find("http_requests_total", {{"handler", "/metrics"}})->value, 17.0);
  EXPECT_FALSE(s.sum("vllm:gpu_cache_usage_perc").has_value());  // V0 name is gone in V1

  const auto ttft = s.histogram("vllm:time_to_first_token_seconds", model);
  ASSERT_TRUE(ttft.has_value());
  EXPECT_EQ(ttft->buckets.size(), 23u);  // 22 bounds + +Inf
  EXPECT_EQ(ttft->buckets[7].first, 0.1);
  EXPECT_EQ(ttft->buckets[7].second, 18.0);
  EXPECT_TRUE(std::isinf(ttft->buckets.back().first));
  EXPECT_EQ(ttft->count, 40.0);
  EXPECT_EQ(ttft->sum, 4.230373390760789);
  EXPECT_FALSE(s.histogram("vllm:num_requests_running").has_value());
}

TEST(PromText, ParsesVllmV0LegacyScrape) {
  SB_REQUIRE_SHARED_FIXTURES();
  const PromScrape s = parse_prom_text(fixture("vllm_v0_legacy_0.6_metrics.txt"), "v0");
  EXPECT_EQ(s.samples.size(), 71u);
  EXPECT_EQ(*s.sum("vllm:gpu_cache_usage_perc"), 0.4172161172161172);
  EXPECT_EQ(*s.sum("vllm:generation_tokens_total"), 6247.0);
  EXPECT_EQ(s.find("vllm:num_requests_running")->label("engine"), nullptr);  // V0 had no engine label
  const auto ttft = s.histogram("vllm:time_to_first_token_seconds");
  ASSERT_TRUE(ttft.has_value());
  EXPECT_EQ(ttft->count, 25.0);
  EXPECT_EQ(ttft->sum, 2.7804364850441323);
}

TEST(PromText, HandlesEscapesSpecialValuesAndTimestamps) {
  const PromScrape s = parse_prom_text(
      "# free comment\n\n"
      "m{a=\"x\\\"y\\\\z\\n\", b = \"2\",} +Inf 1700000000000\r\n"
      "  n NaN\n"
      "o -Inf\n"
      "p 1.5e-3\n");
  ASSERT_EQ(s.samples.size(), 4u);
  EXPECT_EQ(*s.samples[0].label("a"), "x\"y\\z\n");
  EXPECT_EQ(*s.samples[0].label("b"), "2");
  EXPECT_TRUE(std::isinf(s.samples[0].value));
  EXPECT_EQ(*s.samples[0].timestamp_ms, 1700000000000);
  EXPECT_TRUE(std::isnan(s.samples[1].value));
  EXPECT_LT(s.samples[2].value, 0);
  EXPECT_EQ(s.samples[3].value, 0.0015);
}

TEST(PromText, HistogramBucketsWithoutANumericBoundAreLeftOut) {
  const PromScrape s = parse_prom_text(
      "h_bucket{le=\"0.5\"} 1\nh_bucket{le=\"x\"} 2\nh_bucket{le=\"1e0\"} 3\nh_bucket{le=\"2abc\"} 4\n"
      "h_bucket{le=\"\"} 5\nh_bucket{le=\"+Inf\"} 6\nh_count 6\nh_sum 2.5\n");
  const auto h = s.histogram("h");
  ASSERT_TRUE(h.has_value());
  ASSERT_EQ(h->buckets.size(), 3u);
  EXPECT_EQ(h->buckets[0], std::make_pair(0.5, 1.0));
  EXPECT_EQ(h->buckets[1], std::make_pair(1.0, 3.0));
  EXPECT_TRUE(std::isinf(h->buckets[2].first));
  EXPECT_EQ(h->count, 6.0);
}

TEST(PromText, MalformedInputNamesSourceAndLine) {
  const auto message = [](std::string_view text) {
    try {
      parse_prom_text(text, "scrape.txt");
    } catch (const UserError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message("ok 1\nbad{a=\"1\" 2\n"), "scrape.txt:2: expected ',' or '}' in labels (column 11)");
  EXPECT_EQ(message("x 12abc\n"), "scrape.txt:1: bad sample value '12abc' (column 8)");
  EXPECT_EQ(message("x{a=\"open} 1\n"), "scrape.txt:1: unterminated label value (column 13)");
  EXPECT_EQ(message("9x 1\n"), "scrape.txt:1: expected metric name (column 1)");
  EXPECT_EQ(message("x\n"), "scrape.txt:1: expected a value (column 2)");
}

}  // namespace
}  // namespace sb
