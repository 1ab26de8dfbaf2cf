// /metrics round trip: the engine's counters rendered as Prometheus text, parsed back with the
// scraper's parser (orchestrate/prom_text), must equal the engine's own numbers.
#include "sim/prom_render.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>

#include "engine_test_util.hpp"
#include "sim/engine_backend.hpp"
#include "target/prom_text.hpp"
#include "sim/virtual_clock.hpp"
#include "support/test_paths.hpp"

namespace sb::sim {
namespace {

TEST(PromNumber, FormatsLikePrometheusClient) {
  EXPECT_EQ(prom_number(24), "24.0");
  EXPECT_EQ(prom_number(0.4172161172161172), "0.4172161172161172");
  EXPECT_EQ(prom_number(1.0 / 0.0), "+Inf");
}

TEST(PromRender, ParsesBackToTheEngineCounters) {
  EngineConfig config = testing_util::make_config("llama-3-8b", "h100");
  config.num_gpu_blocks_override = 64;  // force preemptions so that counter is non-zero
  EngineBackend backend(config, {});
  const VirtualRun run = run_closed_loop(backend, {16, 48, 32, 128, true});
  const EngineStats& s = backend.engine().stats();
  ASSERT_GT(s.preemptions, 0u);

  std::string text;
  backend.render_metrics(text, "sim/llama \"8b\"");
  const auto scrape = parse_prom_text(text, "/metrics");
  const LabelFilter model = {{"model_name", "sim/llama \"8b\""}, {"engine", "0"}};
  EXPECT_EQ(scrape.types.at("vllm:time_to_first_token_seconds"), "histogram");
  EXPECT_EQ(*scrape.sum("vllm:generation_tokens_total", model), 48.0 * 128);
  EXPECT_EQ(*scrape.sum("vllm:prompt_tokens_total", model), 48.0 * 32);
  EXPECT_EQ(*scrape.sum("vllm:num_preemptions_total", model), static_cast<double>(s.preemptions));
  EXPECT_EQ(scrape.find("vllm:request_success_total", {{"finished_reason", "length"}})->value, 48.0);
  EXPECT_EQ(*scrape.sum("vllm:num_requests_running"), 0.0);
  EXPECT_EQ(*scrape.sum("vllm:kv_cache_usage_perc"), 0.0);
  EXPECT_EQ(scrape.find("vllm:cache_config_info")->label("num_gpu_blocks")->compare("64"), 0);

  const auto ttft = scrape.histogram("vllm:time_to_first_token_seconds", model);
  ASSERT_TRUE(ttft.has_value());
  EXPECT_EQ(ttft->count, 48.0);
  EXPECT_EQ(ttft->buckets.back().second, 48.0);  // +Inf bucket holds everything
  double ttft_sum = 0;
  for (const double v : run.ttft_s()) ttft_sum += v;
  EXPECT_NEAR(ttft->sum, ttft_sum, 1e-9 * ttft_sum);
  const auto itl = scrape.histogram("vllm:inter_token_latency_seconds", model);
  EXPECT_EQ(itl->count, static_cast<double>(run.itl_s.size()));
  const auto steps = scrape.histogram("vllm:iteration_tokens_total", model);
  EXPECT_EQ(steps->count, static_cast<double>(s.steps));
}

std::set<std::string> label_keys(const PromSample& s) {
  std::set<std::string> keys;
  for (const auto& [k, v] : s.labels) keys.insert(k);
  return keys;
}

// Every family the simulator exposes must exist in a real vLLM V1 scrape with the same type, the
// same label keys and (histograms) the same bucket bounds, so dashboards and `tune` read both alike.
TEST(PromRender, NamesLabelsAndBucketsMatchARealVllmScrape) {
  SB_REQUIRE_SHARED_FIXTURES();
  std::ifstream in(sb::test_files::shared_fixture("vllm_metrics/vllm_v1_0.12_metrics.txt"));
  ASSERT_TRUE(in) << "fixture missing";
  std::stringstream ss;
  ss << in.rdbuf();
  const auto real = parse_prom_text(ss.str(), "vllm_v1_0.12_metrics.txt");
  EngineBackend backend(testing_util::make_config("llama-3.2-1b", "h100"), {});
  run_closed_loop(backend, {4, 8, 16, 8, false});
  std::string text;
  backend.render_metrics(text, "m");
  const auto ours = parse_prom_text(text, "/metrics");

  for (const char* family : {"vllm:num_requests_running", "vllm:num_requests_waiting", "vllm:kv_cache_usage_perc",
                             "vllm:num_preemptions_total", "vllm:prompt_tokens_total", "vllm:generation_tokens_total",
                             "vllm:time_to_first_token_seconds", "vllm:inter_token_latency_seconds",
                             "vllm:e2e_request_latency_seconds", "vllm:request_queue_time_seconds"}) {
    EXPECT_TRUE(ours.types.count(family)) << family;
  }
  ASSERT_GE(ours.types.size(), 19u);  // the families docs/simulator.md §7 lists
  for (const auto& [family, type] : ours.types) {
    ASSERT_TRUE(real.types.count(family)) << family << " is not a vLLM V1 metric";
    EXPECT_EQ(type, real.types.at(family)) << family;
  }
  for (const auto& sample : ours.samples) {
    const auto* twin = real.find(sample.name);
    ASSERT_NE(twin, nullptr) << sample.name;
    EXPECT_EQ(label_keys(sample), label_keys(*twin)) << sample.name;
  }
  for (const auto& [family, type] : ours.types) {
    if (type != "histogram") continue;
    const auto a = ours.histogram(family);
    const auto b = real.histogram(family);
    ASSERT_TRUE(a && b) << family;
    ASSERT_EQ(a->buckets.size(), b->buckets.size()) << family;
    for (std::size_t i = 0; i < a->buckets.size(); ++i) EXPECT_EQ(a->buckets[i].first, b->buckets[i].first) << family;
  }
}

TEST(PromRender, GaugesReflectALiveBatch) {
  EngineConfig config = testing_util::make_config("llama-3-8b", "h100");
  config.scheduler.max_num_seqs = 2;
  Engine engine(config);
  for (std::uint64_t i = 0; i < 5; ++i) engine.submit({i, 100, 10, true, 0}, 0);
  std::vector<TokenEvent> events;
  engine.advance(0, events);
  std::string text;
  render_engine_metrics(engine, "m", text);
  const auto scrape = parse_prom_text(text);
  EXPECT_EQ(*scrape.sum("vllm:num_requests_running"), 2.0);
  EXPECT_EQ(*scrape.sum("vllm:num_requests_waiting"), 3.0);
  // Two sequences × ceil(100/16) = 14 blocks in use.
  EXPECT_NEAR(*scrape.sum("vllm:kv_cache_usage_perc"), 14.0 / static_cast<double>(engine.kv_cache().total_blocks()),
              1e-15);
}

}  // namespace
}  // namespace sb::sim
