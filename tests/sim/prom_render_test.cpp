// /metrics round trip: the engine's counters rendered as Prometheus text, parsed back with the
// scraper's parser (orchestrate/prom_text), must equal the engine's own numbers.
#include "sim/prom_render.hpp"

#include <gtest/gtest.h>

#include "engine_test_util.hpp"
#include "sim/engine_backend.hpp"
#include "orchestrate/prom_text.hpp"
#include "sim/virtual_clock.hpp"

namespace sb::sim {
namespace {

using orchestrate::parse_prom_text;

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
  const orchestrate::LabelFilter model = {{"model_name", "sim/llama \"8b\""}, {"engine", "0"}};
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
