// RunOutputs decides when and where files are written; their formats are report/'s (tested there).
#include "pipeline/run_outputs.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/error.hpp"

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
  EXPECT_NE(slurp(cfg.requests_jsonl).find("\"request_id\": \"req-1\""), std::string::npos);

  outputs.stage_done(stage(0, 1), {});
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

}  // namespace
}  // namespace sb::pipeline
