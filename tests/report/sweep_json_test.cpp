// Tests for src/report/sweep_json.cpp against docs/results-format.md. Golden:
// tests/data/report/sweep.golden (regenerate: SB_UPDATE_GOLDEN=1 ./sb_report_tests, review diff).
#include "report/sweep_json.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <filesystem>

#include "core/error.hpp"
#include "report/golden.hpp"
#include "report/py_json.hpp"
#include "report/sample_stage.hpp"

namespace sb::report {
namespace {

using nlohmann::ordered_json;

std::vector<std::string> sweep_keys_of(const ordered_json& j) {
  std::vector<std::string> keys;
  for (auto it = j.begin(); it != j.end(); ++it) keys.push_back(it.key());
  return keys;
}

class SweepJson : public ::testing::Test {
 protected:
  void SetUp() override {
    // vLLM's `date` is local time; pin the zone so the golden is the same everywhere.
    setenv("TZ", "UTC", 1);
    tzset();
  }
};

std::vector<StageSummary> two_stages() {
  StageSummary open = testdata::sample_stage();
  open.stage_index = 0;
  open.load.max_concurrency.reset();
  open.load.request_rate = 4;
  open.schedule_lag = ScheduleLag{0.5, 12.25, 40};
  open.client_saturated = true;
  open.client_limit = ClientLimit::cpu;
  open.dispatch_lag = ScheduleLag{0.25, 11.5, 30};
  open.client_use = ClientUse{2, 250000, 0.5, 0.875, 0.125};
  open.ttft_from_intended = testdata::sample_metric(90);
  open.e2el_from_intended = testdata::sample_metric(1700);
  return {open, testdata::sample_stage()};
}

TEST_F(SweepJson, TopLevelKeysInOrder) {
  const RunContext ctx = testdata::sample_context();
  const ordered_json j = sweep_json(ctx, two_stages(), {1'764'470'100, false, "run.requests.jsonl"});
  EXPECT_EQ(sweep_keys_of(j),
            (std::vector<std::string>{"schema_version", "kind", "tool", "created", "label", "aborted", "config",
                                      "environment", "engine", "load_mode", "requests_file", "prompt_selection", "stages", "analysis"}));
  EXPECT_EQ(j["schema_version"], 1);
  EXPECT_EQ(j["created"], "2025-11-30T02:35:00Z");
  EXPECT_EQ(j["config"]["headers"]["x-team"], "<redacted>");
  EXPECT_EQ(j["environment"]["clock_anchor"]["unix_ns"], 1'764'470'000'000'000'000);
  EXPECT_EQ(j["load_mode"], "concurrency");
  EXPECT_EQ(j["engine"], (ordered_json{{"name", "openai"}, {"known_from", "none"}, {"version", nullptr}}));
  EXPECT_TRUE(j["analysis"].is_null());
}

TEST_F(SweepJson, EngineAsDetectedOrGiven) {
  RunContext ctx = testdata::sample_context();
  ctx.engine = "llama.cpp";
  ctx.engine_clue = "props";
  ctx.engine_version = "b6500-1a2b";
  const ordered_json j = sweep_json(ctx, two_stages(), {1'764'470'100, false, "run.requests.jsonl"});
  EXPECT_EQ(j["engine"], (ordered_json{{"name", "llama.cpp"}, {"known_from", "props"}, {"version", "b6500-1a2b"}}));
  // --backend keeps vLLM's meaning in every stage, whatever the engine.
  EXPECT_EQ(j["stages"][0]["backend"], ctx.backend);
}

TEST_F(SweepJson, StageCarriesAllMetricsAndServebenchBlock) {
  const RunContext ctx = testdata::sample_context();
  const ordered_json j = sweep_stage_json(ctx, testdata::sample_stage());
  const auto keys = sweep_keys_of(j);
  // Percentiles: union of --metric-percentiles {99.9, 99} and 50/90/95/99, ascending.
  const auto ttft = std::find(keys.begin(), keys.end(), "mean_ttft_ms");
  ASSERT_NE(ttft, keys.end());
  EXPECT_EQ(std::vector<std::string>(ttft, ttft + 8),
            (std::vector<std::string>{"mean_ttft_ms", "median_ttft_ms", "std_ttft_ms", "p50_ttft_ms",
                                      "p90_ttft_ms", "p95_ttft_ms", "p99_ttft_ms", "p99.9_ttft_ms"}));
  EXPECT_TRUE(j.contains("p99_e2el_ms"));                       // always all four in the sweep
  EXPECT_TRUE(j.contains("p99_client_queue_time_ms"));          // max_concurrency set
  EXPECT_FALSE(j.contains("p99_e2el_including_client_queue_ms"));  // infinite rate
  EXPECT_FALSE(j.contains("rtfx"));
  EXPECT_EQ(keys.back(), "servebench");
  const ordered_json& sb = j["servebench"];
  EXPECT_EQ(sweep_keys_of(sb),
            (std::vector<std::string>{"stage_index", "load_value", "open_loop", "start_unix_s", "end_unix_s", "sent",
                                      "resent", "aborted", "errors", "token_count_source", "schedule_lag_ms", "client_saturated",
                                      "client_limit", "dispatch_lag_ms", "client_use",
                                      "ttft_from_intended_ms", "e2el_from_intended_ms", "client_queue_ms", "in_flight",
                                      "input_len", "output_len", "output_check", "latency_samples",
                                      "prompt_selection"}));  // no server timings: no server-side keys
  EXPECT_EQ(sb["load_value"], 16.0);
  EXPECT_TRUE(sb["schedule_lag_ms"].is_null());
  EXPECT_TRUE(sb["ttft_from_intended_ms"].is_null());
  EXPECT_EQ(sb["errors"]["http_error"]["http_statuses"]["503"], 2);
  EXPECT_EQ(sb["client_queue_ms"]["p99.9"], 4500.0);
}

TEST_F(SweepJson, OutputCheckAndPromptSelectionPerStageAndRun) {
  const RunContext ctx = testdata::sample_context();
  StageSummary a = testdata::sample_stage();
  a.prompt_selection = "disjoint";
  a.output_check.requested_tokens = 64;
  a.output_check.delivered_tokens = 23;
  a.output_check.shortfall = 1 - 23.0 / 64;
  a.output_check.short_of_requested = true;
  a.output_check.finish_reasons = {{"length", 1}};
  a.tpot.count = 0;
  StageSummary b = a;
  const ordered_json one = sweep_json(ctx, {a, b}, {});
  EXPECT_EQ(one["prompt_selection"], "disjoint");
  const ordered_json& check = one["stages"][0]["servebench"]["output_check"];
  EXPECT_EQ(check["delivered_tokens"], 23);
  EXPECT_EQ(check["short_of_requested"], true);
  EXPECT_EQ(check["finish_reasons"]["length"], 1);
  EXPECT_EQ(one["stages"][0]["servebench"]["latency_samples"]["tpot"], 0);
  EXPECT_EQ(one["stages"][0]["mean_tpot_ms"], a.tpot.mean_ms);  // vLLM's key keeps vLLM's value
  b.prompt_selection = "unique_prefix";
  EXPECT_EQ(sweep_json(ctx, {a, b}, {})["prompt_selection"], "mixed");
  EXPECT_EQ(sweep_json(ctx, {}, {})["prompt_selection"], nullptr);
}

TEST_F(SweepJson, GoldenText) {
  RunContext ctx = testdata::sample_context();
  ctx.client_ceiling = ClientCeiling{.threads = 2, .events_per_cpu_s = 2000000, .events_per_s = 1500000,
                                     .requests_per_s = 24000, .timestamp_overhead_ns = 21.5,
                                     .timer_overshoot_p99_us = 50.25, .dispatch_lag_p99_ms = 0.125,
                                     .dispatch_rate = 2000, .measured_unix_s = 1764470000, .source = CeilingSource::cache};
  const ordered_json j = sweep_json(ctx, two_stages(), {1'764'470'100, true, std::nullopt});
  const std::string text = py_json_dump(j, {.indent = 2, .nan_as_null = true}) + "\n";
  EXPECT_EQ(text, testdata::golden("sweep.golden", text));
}

TEST_F(SweepJson, AtomicRewrite) {
  const auto dir = std::filesystem::temp_directory_path() / "sb_sweep_json_test";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "sweep.json").string();
  const RunContext ctx = testdata::sample_context();
  write_sweep_json(path, sweep_json(ctx, {}, {}));
  write_sweep_json(path, sweep_json(ctx, two_stages(), {}));
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
  const ordered_json back = ordered_json::parse(testdata::read_file(path));
  EXPECT_EQ(back["stages"].size(), 2u);
  EXPECT_EQ(back["stages"][0]["request_rate"], 4.0);
  EXPECT_EQ(back["stages"][0]["servebench"]["schedule_lag_ms"]["p99"], 12.25);
  std::filesystem::remove_all(dir);
  EXPECT_THROW(write_sweep_json((dir / "missing" / "x.json").string(), ordered_json::object()), UserError);
}

}  // namespace
}  // namespace sb::report
