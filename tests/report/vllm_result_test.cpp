// Tests for src/report/vllm_result.cpp: vLLM's key order (vllm/benchmarks/serve.py), selection of metrics and
// percentiles, per-request arrays, file name. Golden: tests/data/report/vllm_result.golden
// (regenerate with SB_UPDATE_GOLDEN=1 ./sb_report_tests, then review the diff).
#include "report/vllm_result.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "core/error.hpp"
#include "report/golden.hpp"
#include "report/py_json.hpp"
#include "report/sample_stage.hpp"

namespace sb::report {
namespace {

std::vector<std::string> vllm_keys_of(const nlohmann::ordered_json& j) {
  std::vector<std::string> keys;
  for (auto it = j.begin(); it != j.end(); ++it) keys.push_back(it.key());
  return keys;
}

VllmStageOptions file_options(const RunContext& ctx, const StageSummary& s) {
  VllmStageOptions opt;
  opt.metrics = vllm_selected_metrics({"ttft", "tpot", "itl"}, s.load);
  opt.percentiles = ctx.metric_percentiles;
  opt.date = "20261130-031500";
  return opt;
}

TEST(VllmResult, KeyOrderMatchesVllm) {
  const RunContext ctx = testdata::sample_context();
  const StageSummary s = testdata::sample_stage();
  const auto j = vllm_stage_json(ctx, s, file_options(ctx, s));
  const std::vector<std::string> keys = vllm_keys_of(j);
  const std::vector<std::string> head(keys.begin(), keys.begin() + 24);
  const std::vector<std::string> expected{
      "date", "endpoint_type", "backend", "label", "model_id", "tokenizer_id", "num_prompts", "gpu",
      "note", "request_rate", "burstiness", "max_concurrency", "duration", "completed", "failed",
      "total_input_tokens", "total_output_tokens", "request_throughput", "request_goodput",
      "output_throughput", "total_token_throughput", "max_output_tokens_per_s",
      "max_concurrent_requests", "rtfx"};
  EXPECT_EQ(head, expected);
  // Percentiles in --metric-percentiles order (99.9 before 99), only the selected metrics; closed
  // loop with a limit adds client_queue_time but not the queue-inclusive E2EL.
  EXPECT_EQ(keys[24], "mean_ttft_ms");
  EXPECT_EQ(keys[27], "p99.9_ttft_ms");
  EXPECT_EQ(keys[28], "p99_ttft_ms");
  EXPECT_TRUE(j.contains("p99_client_queue_time_ms"));
  EXPECT_FALSE(j.contains("mean_e2el_ms"));
  EXPECT_FALSE(j.contains("p50_ttft_ms"));
  EXPECT_FALSE(j.contains("mean_e2el_including_client_queue_ms"));
  EXPECT_FALSE(j.contains("latencies"));
  EXPECT_EQ(j["request_rate"], "inf");
  EXPECT_EQ(j.size(), 24u + 4 * 5);
}

TEST(VllmResult, GoldenText) {
  const RunContext ctx = testdata::sample_context();
  const StageSummary s = testdata::sample_stage();
  const std::string text = py_json_dump(vllm_stage_json(ctx, s, file_options(ctx, s)));
  EXPECT_EQ(text, testdata::golden("vllm_result.golden", text));
}

TEST(VllmResult, SelectedMetrics) {
  StageLoad open;
  open.request_rate = 4;
  EXPECT_EQ(vllm_selected_metrics({"e2el", "ttft"}, open), (std::vector<std::string>{"ttft", "e2el"}));
  open.max_concurrency = 8;
  EXPECT_EQ(vllm_selected_metrics({"itl"}, open),
            (std::vector<std::string>{"itl", "client_queue_time", "e2el_including_client_queue"}));
  StageLoad closed;  // infinite rate: queue-inclusive E2EL is not applicable even when asked
  EXPECT_EQ(vllm_selected_metrics({"e2el_including_client_queue"}, closed), std::vector<std::string>{});
}

TEST(VllmResult, PerRequestArrays) {
  RequestRecord ok;
  ok.sent_ns = 2'000'000'000;
  ok.intended_ns = 1'500'000'000;
  ok.token_ns = {2'100'000'000, 2'150'000'000, 2'400'000'000};
  ok.output_tokens = 3;
  ok.prompt_tokens = 7;
  ok.generated_text = "hi";
  RequestRecord bad;
  bad.outcome = Outcome::http_error;
  bad.error = "Bad Request";
  bad.dataset_prompt_tokens = 9;
  bad.output_tokens = 5;  // ignored: failed requests count 0
  const std::vector<RequestRecord> records{ok, bad};
  const RunContext ctx = testdata::sample_context();
  StageSummary s = testdata::sample_stage();
  VllmStageOptions opt = file_options(ctx, s);
  opt.records = &records;
  auto j = vllm_stage_json(ctx, s, opt);
  // Without --save-detailed vLLM still writes latencies and queue_times.
  EXPECT_FALSE(j.contains("ttfts"));
  EXPECT_EQ(py_json_dump(j["latencies"]), "[0.4, 0.0]");
  EXPECT_EQ(py_json_dump(j["queue_times"]), "[0.5, 0.0]");
  opt.save_detailed = true;
  j = vllm_stage_json(ctx, s, opt);
  const auto keys = vllm_keys_of(j);
  const auto at = std::find(keys.begin(), keys.end(), "input_lens") - keys.begin();
  EXPECT_EQ(keys[static_cast<std::size_t>(at) - 1], "total_token_throughput");
  EXPECT_EQ(std::vector<std::string>(keys.begin() + at, keys.begin() + at + 10),
            (std::vector<std::string>{"input_lens", "output_lens", "ttfts", "itls", "latencies",
                                      "start_times", "queue_times", "generated_texts", "errors",
                                      "max_output_tokens_per_s"}));
  EXPECT_EQ(py_json_dump(j["input_lens"]), "[7, 9]");
  EXPECT_EQ(py_json_dump(j["output_lens"]), "[3, 0]");
  EXPECT_EQ(py_json_dump(j["itls"]), "[[0.05, 0.25], []]");
  EXPECT_EQ(py_json_dump(j["ttfts"]), "[0.1, 0.0]");
  EXPECT_EQ(py_json_dump(j["errors"]), "[\"\", \"Bad Request\"]");
}

TEST(VllmResult, FileName) {
  RunContext ctx = testdata::sample_context();
  StageLoad load;
  EXPECT_EQ(vllm_result_filename(ctx, load, "20261130-031500"),
            "vllm-infqps-Llama-3.1-8B-Instruct-20261130-031500.json");
  load.request_rate = 10;
  load.max_concurrency = 32;
  ctx.label = "tuned";
  EXPECT_EQ(vllm_result_filename(ctx, load, "D"), "tuned-10.0qps-concurrency32-Llama-3.1-8B-Instruct-D.json");
  load.request_rate = 0.5;
  load.max_concurrency.reset();
  ctx.model_id = "plain";
  EXPECT_EQ(vllm_result_filename(ctx, load, "D"), "tuned-0.5qps-plain-D.json");
}

TEST(VllmResult, DateIsLocalTimeStamp) {
  const std::string d = vllm_date(1'764'470'000);
  ASSERT_EQ(d.size(), 15u);
  EXPECT_EQ(d[8], '-');
  EXPECT_EQ(d.substr(0, 4), "2025");
}

TEST(VllmResult, WriteAndAppend) {
  const auto dir = std::filesystem::temp_directory_path() / "sb_vllm_result_test";
  std::filesystem::remove_all(dir);
  const std::string path = (dir / "sub" / "r.json").string();
  write_vllm_result(path, {{"a", 1.0}}, true);
  write_vllm_result(path, {{"b", 2}}, true);
  EXPECT_EQ(testdata::read_file(path), "{\"a\": 1.0}\n{\"b\": 2}");
  write_vllm_result(path, {{"c", nullptr}}, false);
  EXPECT_EQ(testdata::read_file(path), "{\"c\": null}");
  std::filesystem::remove_all(dir);
  EXPECT_THROW(write_vllm_result("/proc/forbidden/x.json", {}, false), UserError);
}

}  // namespace
}  // namespace sb::report

namespace sb::report {
namespace {

TEST(VllmResult, RampUpKeysAndFileName) {
  RunContext ctx = testdata::sample_context();
  ctx.ramp_up_strategy = "linear";
  ctx.ramp_up_start_rps = 1;
  ctx.ramp_up_end_rps = 20;
  StageLoad load;
  load.max_concurrency = 8;
  EXPECT_EQ(vllm_result_filename(ctx, load, "D"),
            "vllm-ramp-up-linear-1qps-20qps-concurrency8-Llama-3.1-8B-Instruct-D.json");
  const StageSummary s = testdata::sample_stage();
  const auto j = vllm_stage_json(ctx, s, file_options(ctx, s));
  const std::vector<std::string> keys = vllm_keys_of(j);
  const auto at = std::find(keys.begin(), keys.end(), "max_concurrency") - keys.begin();
  EXPECT_EQ(std::vector<std::string>(keys.begin() + at + 1, keys.begin() + at + 4),
            (std::vector<std::string>{"ramp_up_strategy", "ramp_up_start_rps", "ramp_up_end_rps"}));
  EXPECT_EQ(py_json_dump(j["ramp_up_end_rps"]), "20");
  EXPECT_FALSE(vllm_stage_json(testdata::sample_context(), s, file_options(ctx, s)).contains("ramp_up_strategy"));
}

}  // namespace
}  // namespace sb::report
