#include "orchestrate/prom_text.hpp"

#include <cmath>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>

#include "core/error.hpp"

namespace sb::orchestrate {
namespace {

std::string fixture(const std::string& name) {
  std::ifstream in(std::string(SB_SHARED_DIR) + "/fixtures/vllm_metrics/" + name);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(PromText, ParsesVllmV1Scrape) {
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
}  // namespace sb::orchestrate
