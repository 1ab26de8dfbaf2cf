// RunOutputs decides when and where files are written; their formats are report/'s (tested there).
#include "pipeline/run_outputs.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/error.hpp"
#include "report/vllm_result.hpp"

namespace sb::pipeline {
namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct TempDir {
  fs::path path = fs::temp_directory_path() / ("sb_run_outputs_" + std::to_string(::getpid()));
  TempDir() { fs::remove_all(path); }
  ~TempDir() { fs::remove_all(path); }
};

StageSummary stage(std::size_t index, int limit) {
  StageSummary s;
  s.stage_index = index;
  s.load.max_concurrency = limit;
  s.num_prompts = s.sent = s.completed = 2;
  return s;
}

TEST(RunOutputs, WritesSweepJsonlAndCsvAsTheRunProgresses) {
  TempDir dir;
  RunConfig cfg;
  cfg.output_json = (dir.path / "out/sweep.json").string();
  cfg.requests_jsonl = (dir.path / "out/sweep.requests.jsonl").string();
  cfg.csv = (dir.path / "csv/table.csv").string();
  report::RunContext ctx;
  ctx.load_mode = LoadMode::concurrency;
  ctx.load_values = {1, 4};
  RunOutputs outputs(cfg, ctx);
  // Created before the first stage, so a bad path fails before any load is sent.
  EXPECT_EQ(nlohmann::json::parse(slurp(cfg.output_json))["stages"].size(), 0u);
  const std::string header = slurp(cfg.csv);
  EXPECT_EQ(std::count(header.begin(), header.end(), '\n'), 1) << header;  // header only

  RequestRecord r;
  r.index = 1;
  outputs.append_record(0, "req-1", r);
  EXPECT_EQ(slurp(cfg.requests_jsonl), "");  // gathered until the worker's pass ends
  outputs.flush_records();
  EXPECT_NE(slurp(cfg.requests_jsonl).find("\"request_id\": \"req-1\""), std::string::npos);
  r.index = 2;
  outputs.append_record(0, "req-2", r);  // the stage's end writes what its last pass left

  outputs.stage_done(stage(0, 1), {});
  EXPECT_NE(slurp(cfg.requests_jsonl).find("\"request_id\": \"req-2\""), std::string::npos);
  outputs.stage_done(stage(1, 4), {});
  const std::string csv = slurp(cfg.csv);
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 3) << csv;
  outputs.finish(false);
  const auto doc = nlohmann::json::parse(slurp(cfg.output_json));
  EXPECT_EQ(doc["stages"].size(), 2u);
  EXPECT_EQ(doc["requests_file"], "sweep.requests.jsonl");
  EXPECT_EQ(outputs.written(), (std::vector<std::string>{cfg.output_json, cfg.csv, cfg.requests_jsonl}));
}

TEST(RunOutputs, UnwritableRequestsFileNamesTheFlag) {
  RunConfig cfg;
  cfg.requests_jsonl = "/proc/no-such-dir/x.jsonl";
  report::RunContext ctx;
  try {
    RunOutputs outputs(cfg, ctx);
    FAIL() << "expected a UserError";
  } catch (const UserError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("--requests-jsonl: ", 0), 0u) << e.what();
  }
}

TEST(RunOutputs, RepeatedStageLoadsGetOneFileEach) {
  TempDir dir;
  RunConfig cfg;
  cfg.save_result = true;
  cfg.result_dir = dir.path.string();
  report::RunContext ctx;
  ctx.backend = "vllm";
  ctx.model_id = "org/m";
  ctx.load_mode = LoadMode::concurrency;
  ctx.load_values = {4, 4, 4};
  RunOutputs outputs(cfg, ctx);
  for (std::size_t i = 0; i < 3; ++i) {
    StageSummary s = stage(i, 4);
    s.end_unix_s = 1'700'000'000;  // the same second: vLLM's names would be equal
    outputs.stage_done(s, {});
  }
  outputs.finish(false);
  const std::string first = report::vllm_result_filename(ctx, stage(0, 4).load, report::vllm_date(1'700'000'000));
  const std::string stem = first.substr(0, first.size() - 5);
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir.path)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{stem + "-stage1.json", stem + "-stage2.json", first}));
  EXPECT_EQ(outputs.written().size(), 3u);
}

TEST(RunOutputs, WriteFailureAfterTheStartIsKeptAndClearedWhenTheFileCanBeWrittenAgain) {
  TempDir dir;
  fs::create_directories(dir.path);
  RunConfig cfg;
  cfg.output_json = (dir.path / "sweep.json").string();
  report::RunContext ctx;
  ctx.load_mode = LoadMode::concurrency;
  ctx.load_values = {1, 2};
  RunOutputs outputs(cfg, ctx);
  // The sweep document cannot be replaced while a folder stands in its place.
  fs::remove(cfg.output_json);
  fs::create_directories(cfg.output_json);
  EXPECT_NO_THROW(outputs.stage_done(stage(0, 1), {}));
  ASSERT_EQ(outputs.lost().size(), 1u);
  EXPECT_EQ(outputs.lost()[0].rfind("--output-json: cannot write " + cfg.output_json + ": ", 0), 0u) << outputs.lost()[0];
  EXPECT_TRUE(outputs.written().empty());
  fs::remove(cfg.output_json);
  outputs.stage_done(stage(1, 2), {});
  outputs.finish(false);
  EXPECT_TRUE(outputs.lost().empty());
  EXPECT_EQ(nlohmann::json::parse(slurp(cfg.output_json))["stages"].size(), 2u);  // both summaries kept
  EXPECT_EQ(outputs.written(), std::vector<std::string>{cfg.output_json});
}

TEST(RunOutputs, RequestsOnDevFullAreReportedLostNotWritten) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  RunConfig cfg;
  cfg.requests_jsonl = "/dev/full";
  report::RunContext ctx;
  RunOutputs outputs(cfg, ctx);
  RequestRecord r;
  outputs.append_record(0, "a", r);
  outputs.append_record(0, "b", r);
  outputs.finish(false);
  EXPECT_TRUE(outputs.written().empty());
  ASSERT_EQ(outputs.lost().size(), 1u);
  EXPECT_EQ(outputs.lost()[0], std::string("--requests-jsonl: cannot write per-request file /dev/full: ") +
                                   std::strerror(ENOSPC) + ": 2 request lines lost (0 written)");
}

}  // namespace
}  // namespace sb::pipeline
