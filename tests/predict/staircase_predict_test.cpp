// predict_staircase end to end in-process: the staircase as run plans it, the known answer of an
// overhead-only engine, and the sweep document marked predicted.
#include "predict/staircase_predict.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/error.hpp"

namespace sb::predict {
namespace {

namespace fs = std::filesystem;

struct PredictDir {
  fs::path path = fs::temp_directory_path() / ("sb_predict_" + std::to_string(::getpid()));
  PredictDir() {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~PredictDir() { fs::remove_all(path); }
};

PredictConfig overhead_only(const fs::path& dir) {
  PredictConfig c;
  c.engine.hardware.model = {"toy", 1e9, 8, 1024, 8, 8, 128, 4096, 32000, 2, 1, 4096};
  c.engine.hardware.gpu = {"fast", "fast", false, 1e12, 1e15, 80, 1e6, {}};
  c.engine.hardware.cost.step_overhead_us = 10'000;  // every step 10 ms (see virtual_client_test)
  c.engine.hardware.cost.seq_overhead_us = 0;         // ... whatever its batch
  c.run.dataset.num_prompts = 8;
  c.run.dataset.random_input_len = 64;
  c.run.dataset.random_output_len = 4;
  c.run.request.ignore_eos = true;
  c.run.load.concurrency = {1, 4};
  c.run.output_json = (dir / "p.json").string();
  c.run.requests_jsonl = (dir / "p.requests.jsonl").string();
  c.source_json = R"({"model_preset": "toy"})";
  return c;
}

TEST(StaircasePredict, ClosedLoopStagesHaveTheirKnownAnswers) {
  PredictDir dir;
  std::FILE* sink = std::tmpfile();
  const PredictResult r = predict_staircase(overhead_only(dir.path), {sink, sink, false});
  std::fclose(sink);
  ASSERT_EQ(r.code, ExitCode::ok);
  ASSERT_EQ(r.stages.size(), 2u);
  // c = 1: 8 requests one after another, 4 steps each: 32 tokens in 320 ms, 25 req/s.
  EXPECT_NEAR(r.stages[0].duration_s, 0.32, 1e-9);
  EXPECT_NEAR(r.stages[0].request_throughput, 25.0, 1e-6);
  EXPECT_NEAR(r.stages[0].ttft.median_ms, 10.0, 1e-9);
  EXPECT_NEAR(r.stages[0].tpot.median_ms, 10.0, 1e-9);
  // c = 4: two waves of 4 steps: 80 ms, 100 req/s.
  EXPECT_NEAR(r.stages[1].duration_s, 0.08, 1e-9);
  EXPECT_NEAR(r.stages[1].request_throughput, 100.0, 1e-6);
  EXPECT_EQ(r.stages[1].completed, 8);
  EXPECT_EQ(r.engine_steps, 32u + 8u);
  ASSERT_TRUE(r.analysis.has_value());

  std::ifstream in(dir.path / "p.json");
  const nlohmann::json doc = nlohmann::json::parse(in);
  EXPECT_EQ(doc["predicted"], true);
  EXPECT_EQ(doc["prediction"]["model_preset"], "toy");
  EXPECT_EQ(doc["stages"].size(), 2u);
  EXPECT_EQ(doc["stages"][1]["max_concurrency"], 4);
  EXPECT_NEAR(doc["stages"][1]["request_throughput"].get<double>(), 100.0, 1e-6);
  EXPECT_TRUE(doc["analysis"].is_object());
  std::ifstream jsonl(dir.path / "p.requests.jsonl");
  int lines = 0;
  for (std::string line; std::getline(jsonl, line);) ++lines;
  EXPECT_EQ(lines, 16);
}

TEST(StaircasePredict, RefusesWhatItCannotPlay) {
  PredictDir dir;
  PredictConfig c = overhead_only(dir.path);
  c.run.repeats = 2;
  EXPECT_EQ(unsupported_in_prediction(c.run).size(), 1u);
  EXPECT_THROW(predict_staircase(c, {stdout, stderr, true}), UserError);
  c = overhead_only(dir.path);
  c.engine.hardware.model.params = 1e13;  // 20 TB of weights: does not fit
  EXPECT_THROW(predict_staircase(c, {stdout, stderr, true}), UserError);
  EXPECT_FALSE(fs::exists(dir.path / "p.json"));  // refused before any output
}

}  // namespace
}  // namespace sb::predict
