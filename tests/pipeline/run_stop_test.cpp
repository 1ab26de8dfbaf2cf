// pipeline::run's stop token against the in-process simulator: a stop during a stage ends that
// stage (no later stage starts) and marks everything aborted; a stop before the load sends nothing.
#include "pipeline/run_pipeline.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <thread>

#include "sim/fixed_cost.hpp"
#include "sim/server.hpp"

namespace sb::pipeline {
namespace {

namespace fs = std::filesystem;

struct StopFixture {
  fs::path dir = fs::temp_directory_path() / ("sb_run_stop_" + std::to_string(::getpid()));
  std::unique_ptr<sim::Server> server;
  std::FILE* out = std::tmpfile();
  std::FILE* err = std::tmpfile();

  StopFixture() {
    fs::remove_all(dir);
    fs::create_directories(dir);
    sim::ServerOptions opt;
    opt.port = 0;
    // 16 tokens at 40 ms each: a request takes ~0.65 s, a stage of 8 at concurrency 2 ~2.6 s.
    server = std::make_unique<sim::Server>(opt, std::make_unique<sim::FixedCostBackend>(
                                                    sim::FixedCostOptions{.ttft_ms = 5, .itl_ms = 40}));
    server->start();
  }
  ~StopFixture() {
    server->stop();
    std::fclose(out);
    std::fclose(err);
    fs::remove_all(dir);
  }

  RunConfig config() const {
    RunConfig c;
    c.client.endpoint.host = "127.0.0.1";
    c.client.endpoint.port = server->port();
    c.base_url = c.client.endpoint.url("");
    c.dataset.num_prompts = 8;
    c.dataset.random_input_len = 16;
    c.dataset.random_output_len = 16;
    c.request.ignore_eos = true;
    c.load.concurrency = {2, 4};
    c.client.threads = 1;
    c.preflight_request = false;  // its 0.65 s would come before the stop's timing
    c.output_json = (dir / "sweep.json").string();
    c.requests_jsonl = (dir / "sweep.requests.jsonl").string();
    return c;
  }
  RunIo io() const { return RunIo{out, err, false}; }
};

std::string read_all(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(RunStop, StopDuringAStageEndsTheRunMarkedAborted) {
  StopFixture f;
  std::stop_source stop;
  std::jthread requester([&stop] {
    std::this_thread::sleep_for(std::chrono::milliseconds(400));
    stop.request_stop();  // from another thread, as app/'s signal watcher does
  });
  const auto start = std::chrono::steady_clock::now();
  const RunResult r = run(f.config(), f.io(), stop.get_token());
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_TRUE(r.aborted);
  EXPECT_EQ(r.code, ExitCode::aborted);
  ASSERT_EQ(r.stages.size(), 1u);  // the second stage never starts
  EXPECT_TRUE(r.stages[0].aborted);
  // The un-sent requests are neither sent nor failed (they were counted as failed before).
  EXPECT_LT(r.stages[0].sent, r.stages[0].num_prompts);
  EXPECT_EQ(r.stages[0].completed + r.stages[0].failed, r.stages[0].sent);
  EXPECT_LT(seconds, 2.5);           // the in-flight pair finishes; the rest is not sent
  EXPECT_NE(read_all(f.dir / "sweep.json").find("\"aborted\": true"), std::string::npos);
  EXPECT_NE(read_all(f.dir / "sweep.requests.jsonl").find("not sent: the run was stopped"), std::string::npos);
}

TEST(RunStop, StopBeforeTheLoadSendsNothing) {
  StopFixture f;
  std::stop_source stop;
  stop.request_stop();
  const RunResult r = run(f.config(), f.io(), stop.get_token());
  EXPECT_TRUE(r.aborted);
  EXPECT_EQ(r.code, ExitCode::aborted);
  EXPECT_TRUE(r.stages.empty());
  // Stopped before the preparation (preflight, tokenizer) finished: nothing measured, nothing written.
  EXPECT_FALSE(fs::exists(f.dir / "sweep.json"));
  std::rewind(f.err);
  std::string err(4096, '\0');
  err.resize(std::fread(err.data(), 1, err.size(), f.err));
  EXPECT_NE(err.find("stopped before the load started"), std::string::npos) << err;
}

TEST(RunStop, WithoutAStopEveryStageRuns) {
  StopFixture f;
  RunConfig c = f.config();
  c.dataset.num_prompts = 2;
  c.dataset.random_output_len = 2;
  const RunResult r = run(c, f.io(), {});
  EXPECT_FALSE(r.aborted);
  EXPECT_EQ(r.code, ExitCode::ok);
  ASSERT_EQ(r.stages.size(), 2u);
  EXPECT_EQ(r.stages[1].completed, 2);
}

}  // namespace
}  // namespace sb::pipeline
