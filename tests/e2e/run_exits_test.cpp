// `servebench run` exit paths against `servebench sim`: a base URL ending in /v1, flag values the
// client cannot honour (thread count, a schedule beyond the clock's range).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "e2e/run_process.hpp"
#include "support/timing_bounds.hpp"

namespace sb::e2e {
namespace {

using Json = nlohmann::json;

TEST(RunExitsE2e, BaseUrlEndingInV1RunsAgainstV1Completions) {
  TempDir dir("exits_v1");
  Sim sim({"--ttft-ms", "1", "--itl-ms", "1"}, dir.path);
  ASSERT_NE(sim.port(), 0);
  for (const std::string suffix : {"/v1", "/v1/"}) {
    // The simulator answers 404 on anything but /v1/models and /v1/completions (/v1/v1/... included).
    RunResult r = run_servebench({"--base-url", "http://127.0.0.1:" + sim.port_text() + suffix, "--num-prompts",
                                  "3", "--random-input-len", "4", "--random-output-len", "2", "--output-json",
                                  "v.json"},
                                 dir.path);
    ASSERT_EQ(r.code, 0) << suffix << "\n" << r.err;
    EXPECT_EQ(r.err.find("/v1/models"), std::string::npos) << r.err;  // found too, no 404 warning
    const Json doc = Json::parse(slurp(dir.path / "v.json"));
    EXPECT_EQ(doc["stages"][0]["completed"], 3) << suffix;
    EXPECT_EQ(doc["config"]["base_url"], "http://127.0.0.1:" + sim.port_text()) << doc["config"].dump();
    EXPECT_EQ(doc["config"]["endpoint"], "/v1/completions") << doc["config"].dump();
  }
}

TEST(RunExitsE2e, TooManyClientThreadsIsAOneLineFlagError) {
  TempDir dir("exits_threads");
  const auto t0 = std::chrono::steady_clock::now();
  RunResult r = run_servebench({"--port", "1", "--client-threads", "100000"}, dir.path);
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_EQ(r.err, "servebench run: --client-threads: must be <= 1024 (each is an OS thread with its own event "
                   "loop), got 100000\n");
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), sb::test_timing::prompt_s(5.0));
}

TEST(RunExitsE2e, RateWhoseScheduleOverflowsIsRefused) {
  TempDir dir("exits_rate");
  RunResult r = run_servebench({"--port", "1", "--request-rate", "1e-300"}, dir.path);
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find("--request-rate: 1e-300 req/s for 1000 requests"), std::string::npos) << r.err;
}

TEST(RunExitsE2e, AllFailedStageStopsTheSweepWithExitFour) {
  TempDir dir("exits_allfail");
  Sim sim({"--ttft-ms", "1", "--itl-ms", "1", "--fail-ratio", "1", "--fail-status", "503"}, dir.path);
  ASSERT_NE(sim.port(), 0);
  RunResult r = run_servebench({"--port", sim.port_text(), "--num-prompts", "20", "--random-input-len", "4",
                                "--random-output-len", "2", "--concurrency", "4", "8", "--output-json", "a.json",
                                "--no-preflight-request"},
                               dir.path);
  EXPECT_EQ(r.code, 4) << r.err;
  EXPECT_NE(r.err.find("stage c=4: 20 of 20 requests failed (http_error 20): stopping\n"), std::string::npos)
      << r.err;
  const Json doc = Json::parse(slurp(dir.path / "a.json"));
  ASSERT_EQ(doc["stages"].size(), 1u);  // c=8 never ran
  EXPECT_EQ(doc["stages"][0]["failed"], 20);
  // --max-failure-ratio 1 never stops: both stages run, exit 0.
  r = run_servebench({"--port", sim.port_text(), "--num-prompts", "20", "--random-input-len", "4",
                      "--random-output-len", "2", "--concurrency", "4", "8", "--output-json", "b.json",
                      "--max-failure-ratio", "1", "--no-preflight-request"},
                     dir.path);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(Json::parse(slurp(dir.path / "b.json"))["stages"].size(), 2u);
}

TEST(RunExitsE2e, ContextLengthFailuresGetTheirRemedy) {
  TempDir dir("exits_ctx");
  Sim sim({"--ttft-ms", "1", "--itl-ms", "1", "--max-model-len", "16"}, dir.path);
  ASSERT_NE(sim.port(), 0);
  RunResult r = run_servebench({"--port", sim.port_text(), "--num-prompts", "5", "--random-input-len", "32",
                                "--random-output-len", "2", "--max-failure-ratio", "1", "--no-preflight-request"},
                               dir.path);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("Remedy (5 requests, context length exceeded): prompt + max_tokens exceed the model's "
                       "context: use shorter inputs"),
            std::string::npos) << r.out;
  EXPECT_NE(r.out.find("larger --max-model-len\n"), std::string::npos) << r.out;
}

TEST(RunExitsE2e, FailedTestRequestStopsBeforeTheLoad) {
  TempDir dir("exits_preflight");
  Sim sim({"--ttft-ms", "1", "--itl-ms", "1", "--fail-ratio", "1", "--fail-status", "503"}, dir.path);
  ASSERT_NE(sim.port(), 0);
  RunResult r = run_servebench({"--port", sim.port_text(), "--num-prompts", "5", "--random-input-len", "4",
                                "--random-output-len", "2", "--output-json", "p.json"},
                               dir.path);
  // The server answered, and failed every try: exit 7, not 3 (unreachable).
  EXPECT_EQ(r.code, 7) << r.err;
  EXPECT_NE(r.err.find("failed on each of 4 tries, the last (http_error): HTTP 503 Service Unavailable: injected "
                       "fault (--fail-ratio); the server answers but fails it: its log says why; "
                       "--max-failure-ratio 1 measures it anyway, --no-preflight-request skips it\n"),
            std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir.path / "p.json"));
  // A body the server rejects (400, context length) is the run's configuration: exit 3 at once.
  fs::create_directories(dir.path / "ctx");
  Sim ctx({"--ttft-ms", "1", "--itl-ms", "1", "--max-model-len", "16"}, dir.path / "ctx");
  ASSERT_NE(ctx.port(), 0);
  r = run_servebench({"--port", ctx.port_text(), "--num-prompts", "5", "--random-input-len", "32"}, dir.path);
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_NE(r.err.find("maximum context length"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("larger --max-model-len"), std::string::npos) << r.err;
}

TEST(RunExitsE2e, ServerKilledMidRunExitsFour) {
  TempDir dir("exits_killed");
  // Started here rather than with Sim, to SIGKILL it: the first stdout line names the port.
  const pid_t sim_pid = spawn({"sim", "--port", "0", "--ttft-ms", "1", "--itl-ms", "5"}, dir.path, "sim");
  std::string port;
  for (int i = 0; i < 500 && port.empty(); ++i) {
    const std::string out = slurp(dir.path / "sim.out");
    const auto nl = out.find('\n');
    if (nl != std::string::npos) port = out.substr(out.rfind(':', nl) + 1, nl - out.rfind(':', nl) - 1);
    else std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_FALSE(port.empty());
  // 200 requests of ~250 ms at c=4: about 12 s, killed after the first completion.
  const pid_t pid = spawn({"run", "--port", port, "--num-prompts", "200", "--random-input-len", "4",
                           "--random-output-len", "50", "--concurrency", "4", "8", "--output-json", "k.json"},
                          dir.path, "run");
  const auto t0 = std::chrono::steady_clock::now();
  while (slurp(dir.path / "k.requests.jsonl").find('\n') == std::string::npos &&
         std::chrono::steady_clock::now() - t0 < std::chrono::seconds(20)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ::kill(sim_pid, SIGKILL);  // the server dies with requests in flight
  wait_exit(sim_pid, 5);
  EXPECT_EQ(wait_exit(pid, 60), 4) << slurp(dir.path / "run.err");
  const std::string err = slurp(dir.path / "run.err");
  EXPECT_NE(err.find("stage c=4: "), std::string::npos) << err;
  EXPECT_NE(err.find("connect_error"), std::string::npos) << err;
  const Json doc = Json::parse(slurp(dir.path / "k.json"));
  ASSERT_EQ(doc["stages"].size(), 1u);
  const Json& s = doc["stages"][0];
  EXPECT_EQ(s["completed"].get<int>() + s["failed"].get<int>(), s["servebench"]["sent"].get<int>());
  EXPECT_EQ(s["servebench"]["sent"], 200);
  EXPECT_GT(s["failed"].get<int>(), 100);
}

}  // namespace
}  // namespace sb::e2e
