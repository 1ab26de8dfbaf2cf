#include "results/result_reader.hpp"

#include <cmath>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "core/error.hpp"

namespace sb::results {
namespace {

std::string fixture(const std::string& name) { return std::string(SB_SOURCE_DIR) + "/tests/data/analyze/" + name; }

TEST(ResultReader, SweepDocument) {
  const auto runs = read_runs({fixture("knee_c16.json")});
  ASSERT_EQ(runs.size(), 1u);
  const results::Run& r = runs[0];
  EXPECT_EQ(r.format, "servebench.sweep");
  EXPECT_EQ(r.label, "knee-c16");
  EXPECT_EQ(r.load_mode, LoadMode::concurrency);
  EXPECT_EQ(r.model, "sim-llama-8b");
  EXPECT_EQ(r.dataset, "random");
  ASSERT_EQ(r.stages.size(), 8u);
  EXPECT_DOUBLE_EQ(r.stages[4].load_value, 16);
  EXPECT_EQ(r.stages[4].max_concurrency, 16);
  EXPECT_TRUE(std::isinf(r.stages[4].request_rate));
  EXPECT_NEAR(r.stages[4].request_throughput, 32.0, 1e-9);
  EXPECT_DOUBLE_EQ(*metric_by_name(r.stages[5], "p99_ttft_ms"), 200);
  EXPECT_DOUBLE_EQ(*metric_by_name(r.stages[5], "ttft_p99"), 200);     // alias
  EXPECT_DOUBLE_EQ(*metric_by_name(r.stages[5], "ttft_p99_ms"), 200);  // alias
  EXPECT_DOUBLE_EQ(*metric_by_name(r.stages[5], "ttft_p50"), 100);
  EXPECT_FALSE(metric_by_name(r.stages[5], "request_goodput").has_value());
  EXPECT_FALSE(metric_by_name(r.stages[5], "nonsense").has_value());
  EXPECT_DOUBLE_EQ(*r.stages[0].output_len_mean, 128);
  EXPECT_TRUE(r.requests.empty());
}

// The workload keys (docs/results-format.md): output_check, ttft_from_intended_ms, prompt_selection,
// steady_state.duration_bounded;
// documents written before them read as absent.
TEST(ResultReader, WorkloadKeysOfAStage) {
  const std::string doc = R"({"schema_version": 1, "kind": "servebench.sweep", "load_mode": "request_rate", "stages": [
    {"request_rate": 8, "max_concurrency": null, "completed": 5, "duration": 1.0, "request_throughput": 5,
     "output_throughput": 115, "servebench": {"load_value": 8,
     "ttft_from_intended_ms": {"mean": 30.0, "p99": 41.5}, "prompt_selection": "unique_prefix",
     "steady_state": {"duration_bounded": true, "target_in_flight": 8},
     "output_check": {"requested_tokens": 320, "delivered_tokens": 115, "shortfall": 0.640625,
       "short_of_requested": true, "short_requests": 5, "finish_reasons": {"length": 5}, "without_text": 2}}},
    {"request_rate": 16, "max_concurrency": null, "completed": 5, "duration": 1.0, "request_throughput": 5,
     "output_throughput": 320, "servebench": {"load_value": 16}}]})";
  const results::Run run = parse_sweep(doc, "w.json");
  ASSERT_EQ(run.stages.size(), 2u);
  const results::Stage& s = run.stages[0];
  ASSERT_TRUE(s.output_check.has_value());
  EXPECT_EQ(s.output_check->delivered_tokens, 115);
  EXPECT_EQ(s.output_check->requested_tokens, 320);
  EXPECT_TRUE(s.output_check->short_of_requested);
  EXPECT_EQ(s.output_check->finish_reasons.at("length"), 5);
  EXPECT_EQ(s.output_check->without_text, 2);
  EXPECT_DOUBLE_EQ(*s.ttft_from_intended_p99_ms, 41.5);
  EXPECT_EQ(s.prompt_selection, "unique_prefix");
  EXPECT_TRUE(s.duration_bounded);
  EXPECT_FALSE(run.stages[1].duration_bounded);
  EXPECT_FALSE(run.stages[1].output_check.has_value());
  EXPECT_FALSE(run.stages[1].ttft_from_intended_p99_ms.has_value());
  EXPECT_EQ(run.stages[1].prompt_selection, "");
}

// A --repeats sweep (servebench.repeat per stage) is one run per pass, so report's overlay and
// variance warnings see K runs of one staircase instead of one run with every load twice.
TEST(ResultReader, RepeatedSweepSplitsIntoOneRunPerPass) {
  std::string stages;
  for (int k = 0; k < 2; ++k)
    for (int c : {1, 4}) {
      if (!stages.empty()) stages += ",";
      stages += R"({"max_concurrency": )" + std::to_string(c) + R"(, "completed": 4, "duration": 1.0, "output_throughput": 10, "request_throughput": )" +
                std::to_string(c * (k + 1)) + R"(, "servebench": {"load_value": )" + std::to_string(c) +
                R"(, "stage_index": )" + std::to_string(c == 1 ? 0 : 1) + R"(, "repeat": )" + std::to_string(k) + "}}";
    }
  const std::string doc = R"({"schema_version": 1, "kind": "servebench.sweep", "label": "base", "load_mode": "concurrency", "stages": [)" +
                          stages + "]}";
  const std::vector<results::Run> runs = split_repeats(parse_sweep(doc, "r.json"));
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].label, "base repeat 1");
  EXPECT_EQ(runs[1].label, "base repeat 2");
  ASSERT_EQ(runs[1].stages.size(), 2u);
  EXPECT_DOUBLE_EQ(runs[1].stages[0].load_value, 1);
  EXPECT_DOUBLE_EQ(runs[1].stages[1].request_throughput, 8);  // the second pass's own value
  EXPECT_EQ(runs[1].stages[1].repeat, 1);
  // A sweep without repeats stays one run, label unchanged.
  const std::vector<results::Run> one = split_repeats(read_runs({fixture("knee_c16.json")}).front());
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].label, "knee-c16");
}

TEST(ResultReader, PerRequestJsonlNextToTheDocument) {
  const auto r = read_runs({fixture("baseline.json")}).at(0);
  ASSERT_EQ(r.requests.size(), 600u);
  EXPECT_EQ(r.requests[0].stage, 0);
  EXPECT_EQ(r.requests[599].stage, 2);
  EXPECT_TRUE(r.requests[0].ok);
  EXPECT_NEAR(r.requests[0].ttft_ms, 225.76369506310925, 1e-9);
  EXPECT_EQ(r.requests[0].output_tokens, 128);
}

TEST(ResultReader, RateSweepAndStatusKeys) {
  const auto r = read_runs({fixture("rate_sweep.json")}).at(0);
  EXPECT_EQ(r.load_mode, LoadMode::request_rate);
  EXPECT_DOUBLE_EQ(r.stages[3].load_value, 8);
  EXPECT_FALSE(r.stages[3].max_concurrency.has_value());
  EXPECT_TRUE(r.stages[4].client_saturated);
  EXPECT_DOUBLE_EQ(*r.stages[4].schedule_lag_p99_ms, 50);
  const auto nm = read_runs({fixture("nonmonotone.json")}).at(0);
  EXPECT_EQ(nm.stages[6].failed, 40);
  EXPECT_EQ(nm.stages[6].errors.at("timeout"), 40);
}

TEST(ResultReader, VllmFilesGroupIntoOneSortedRun) {
  std::vector<std::string> files;
  for (int c : {16, 4, 8, 2})  // out of order on purpose
    files.push_back(fixture("vllm/vllm-infqps-concurrency" + std::to_string(c) + "-llama-3-8b-20250101-120000.json"));
  const auto runs = read_runs(files);
  ASSERT_EQ(runs.size(), 1u);
  const results::Run& r = runs[0];
  EXPECT_EQ(r.format, "vllm");
  EXPECT_EQ(r.load_mode, LoadMode::concurrency);
  EXPECT_EQ(r.model, "meta/llama-3-8b");
  ASSERT_EQ(r.stages.size(), 4u);
  EXPECT_DOUBLE_EQ(r.stages[0].load_value, 2);
  EXPECT_DOUBLE_EQ(r.stages[3].load_value, 16);
  EXPECT_EQ(r.stages[0].stage_index, 0);  // numbered by load: vLLM files have no run order
  EXPECT_EQ(r.stages[3].stage_index, 3);
  EXPECT_DOUBLE_EQ(*metric_by_name(r.stages[3], "p99_ttft_ms"), 400);
  // --save-detailed arrays of the concurrency-16 file (read first) now point at sorted stage 3.
  ASSERT_EQ(r.requests.size(), 100u);
  EXPECT_EQ(r.requests[0].stage, 3);
  EXPECT_NEAR(r.requests[0].ttft_ms, 200, 1e-9);
  EXPECT_NEAR(r.requests[0].tpot_ms, 20, 1e-9);
}

TEST(ResultReader, LegacyVllmKeys) {
  // v0.8 shape: no label/failed/total_token_throughput, goodput spelled "request_goodput:", request
  // rate as a number and no max_concurrency: a rate sweep of two files.
  const std::string a = R"({"date": "20250101-120000", "backend": "vllm", "model_id": "m/x", "num_prompts": 10,
    "request_rate": 2.0, "burstiness": 1.0, "max_concurrency": null, "duration": 5.0, "completed": 10,
    "total_input_tokens": 1000, "total_output_tokens": 500, "request_throughput": 2.0,
    "request_goodput:": 1.5, "output_throughput": 100.0, "mean_ttft_ms": 40.0, "p99_ttft_ms": 90.0})";
  const std::string b = R"({"backend": "vllm", "model_id": "m/x", "request_rate": 4.0, "duration": 5.0,
    "completed": 20, "total_input_tokens": 2000, "total_output_tokens": 1000, "request_throughput": 4.0,
    "output_throughput": 200.0, "p99_ttft_ms": 120.0})";
  const auto runs = group_vllm({{"b.json", b}, {"a.json", a}});
  ASSERT_EQ(runs.size(), 1u);
  const results::Run& r = runs[0];
  EXPECT_EQ(r.load_mode, LoadMode::request_rate);
  ASSERT_EQ(r.stages.size(), 2u);
  EXPECT_DOUBLE_EQ(r.stages[0].load_value, 2);
  EXPECT_DOUBLE_EQ(r.stages[0].total_token_throughput, 300);  // (1000 + 500) tokens / 5 s
  EXPECT_EQ(r.stages[0].request_goodput, std::optional<double>(1.5));
  EXPECT_FALSE(r.stages[1].request_goodput.has_value());
  EXPECT_DOUBLE_EQ(*metric_by_name(r.stages[1], "p99_ttft_ms"), 120);
}

TEST(ResultReader, FolderMeansItsJsonFiles) {
  const auto runs = read_runs({fixture("vllm")});
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].stages.size(), 4u);
  EXPECT_DOUBLE_EQ(runs[0].stages[0].load_value, 2);
  EXPECT_EQ(read_runs({fixture("sim")}).size(), 2u);  // two sweep documents; the JSONL files are not read as runs
  const auto empty = std::filesystem::temp_directory_path() / "sb-result-reader-empty";
  std::filesystem::create_directories(empty);
  EXPECT_THROW(read_runs({empty.string()}), UserError);
  std::filesystem::remove(empty);
}

TEST(ResultReader, MalformedJsonNamesFileAndLine) {
  try {
    parse_sweep("{\n  \"kind\": \"servebench.sweep\",\n  \"stages\": [,]\n}", "bad.json");
    FAIL();
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("bad.json:3: malformed JSON"), std::string::npos) << e.what();
  }
}

TEST(ResultReader, WrongDocumentsAreRejected) {
  EXPECT_THROW(parse_sweep(R"({"kind": "other"})", "x.json"), UserError);
  EXPECT_THROW(parse_sweep(R"({"kind": "servebench.sweep", "schema_version": 2, "stages": []})", "x.json"),
               UserError);
  try {
    parse_sweep(R"({"kind": "servebench.sweep", "schema_version": 1, "stages": [{"duration": 1}]})", "y.json");
    FAIL();
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("y.json: stages[0]: missing or non-numeric key \"completed\""),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(read_runs({fixture("does-not-exist.json")}), UserError);
  EXPECT_THROW(parse_requests_jsonl("{\"stage\": 0}\n{oops}\n", "r.jsonl"), UserError);
}

TEST(ResultReader, UnlabelledRunIsNamedAfterItsFile) {
  const results::Run r = parse_sweep(R"({"kind": "servebench.sweep", "schema_version": 1, "label": null,
      "load_mode": "request_rate", "stages": [{"request_rate": "inf", "duration": 2, "completed": 4,
      "request_throughput": 2, "output_throughput": 20}]})",
                            "/tmp/sweeps/max-seqs-16.json");
  EXPECT_EQ(r.label, "max-seqs-16");
  EXPECT_TRUE(std::isinf(r.stages[0].load_value));
}

TEST(ResultReader, RedactsSecrets) {
  const std::string out = redact_config(
      R"({"api_key": "sk-123", "tokenizer": "gpt2", "headers": {"X-Token": "abc"}, "nested": {"password": "p"}})");
  EXPECT_EQ(out.find("sk-123"), std::string::npos);
  EXPECT_EQ(out.find("abc"), std::string::npos);
  EXPECT_EQ(out.find("\"p\""), std::string::npos);
  EXPECT_NE(out.find("gpt2"), std::string::npos);  // "tokenizer" is not a secret
}

}  // namespace
}  // namespace sb::results
