// `servebench run` error paths against `servebench sim`: injected faults counted per category,
// connection refused, refused API key, unknown model, bad flags, and Ctrl-C.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "e2e/run_process.hpp"
#include "support/timing_bounds.hpp"

namespace sb::e2e {
namespace {

using Json = nlohmann::json;

TEST(RunE2e, InjectedFaultsLandInTheirCategories) {
  TempDir dir("faults");
  Sim sim({"--ttft-ms", "2", "--itl-ms", "1", "--fail-ratio", "0.2", "--fail-status", "503", "--drop-ratio", "0.2",
           "--malformed-ratio", "0.2", "--seed", "7"},
          dir.path);
  ASSERT_NE(sim.port(), 0);
  RunResult r = run_servebench({"--port", sim.port_text(), "--num-prompts", "60", "--random-output-len", "8",
                                "--random-input-len", "8", "--concurrency", "8", "--output-json", "f.json",
                                "--max-failure-ratio", "1", "--no-preflight-request"},  // 60% fail by design
                               dir.path);
  ASSERT_EQ(r.code, 0) << r.err;
  const Json s = Json::parse(slurp(dir.path / "f.json"))["stages"][0];
  const Json& errors = s["servebench"]["errors"];
  int failed = 0;
  for (const char* category : {"http_error", "dropped", "malformed"}) {
    ASSERT_TRUE(errors.contains(category)) << category << " in " << errors.dump();
    EXPECT_GT(errors[category]["count"].get<int>(), 0) << category;
    EXPECT_FALSE(errors[category]["sample"].get<std::string>().empty()) << category;
    failed += errors[category]["count"].get<int>();
  }
  EXPECT_EQ(errors["http_error"]["http_statuses"]["503"], errors["http_error"]["count"]);
  EXPECT_EQ(errors.size(), 3u) << errors.dump();
  EXPECT_EQ(s["failed"], failed);
  EXPECT_EQ(s["completed"].get<int>() + failed, 60);
  // The summary explains the difference between sent and completed.
  EXPECT_NE(r.out.find("Failed requests during benchmark run detected (capping to 10):\nError 0: "),
            std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Errors by category:\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  http_error: "), std::string::npos);
}

TEST(RunE2e, MaxFailureRatioGivesExitFour) {
  TempDir dir("ratio");
  Sim sim({"--ttft-ms", "1", "--itl-ms", "1", "--fail-ratio", "0.5"}, dir.path);
  RunResult r = run_servebench({"--port", sim.port_text(), "--num-prompts", "20", "--random-output-len", "2",
                                "--max-failure-ratio", "0.1", "--no-preflight-request"},
                               dir.path);
  EXPECT_EQ(r.code, 4) << r.err;
  EXPECT_NE(r.err.find("--max-failure-ratio"), std::string::npos) << r.err;
}

TEST(RunE2e, ConnectionRefusedNamesHostPortAndBind) {
  TempDir dir("refused");
  RunResult r = run_servebench({"--port", "1", "--num-prompts", "1", "--output-json", "x.json"}, dir.path);
  EXPECT_EQ(r.code, 3);
  EXPECT_NE(r.err.find("127.0.0.1:1"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("0.0.0.0"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir.path / "x.json"));
}

TEST(RunE2e, RefusedKeyAndNeverPrintedKey) {
  TempDir dir("auth");
  Sim sim({"--api-key", "sk-right", "--ttft-ms", "1", "--itl-ms", "1"}, dir.path);
  RunResult bad = run_servebench({"--port", sim.port_text(), "--num-prompts", "2"}, dir.path,
                                 {{"OPENAI_API_KEY", "sk-WRONG-KEY"}});
  EXPECT_EQ(bad.code, 3);
  EXPECT_NE(bad.err.find("refused the API key"), std::string::npos) << bad.err;
  EXPECT_EQ(bad.err.find("sk-WRONG-KEY"), std::string::npos);
  // The right key from a config file; the sweep document must not contain it.
  std::ofstream(dir.path / "servebench.toml") << "api_key = \"sk-right\"\nnum_prompts = 3\n";
  RunResult good = run_servebench({"--port", sim.port_text(), "--random-output-len", "2", "--output-json", "a.json"},
                                  dir.path);
  ASSERT_EQ(good.code, 0) << good.err;
  const std::string doc = slurp(dir.path / "a.json");
  EXPECT_EQ(doc.find("sk-right"), std::string::npos);
  EXPECT_EQ(Json::parse(doc)["stages"][0]["completed"], 3);
}

TEST(RunE2e, UnknownModelListsServedIds) {
  TempDir dir("model");
  Sim sim({}, dir.path);
  RunResult r = run_servebench({"--port", sim.port_text(), "--model", "gpt-9", "--num-prompts", "1"}, dir.path);
  EXPECT_EQ(r.code, 3);
  EXPECT_NE(r.err.find("'gpt-9' is not served"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("sim-model"), std::string::npos);
}

TEST(RunE2e, BadFlagsAllReportedWithExitTwo) {
  TempDir dir("flags");
  RunResult r = run_servebench({"--num-prompts", "x", "--concurrency", "0", "--backend", "tgi"}, dir.path);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("3 problems"), std::string::npos) << r.err;
}

TEST(RunE2e, CtrlCStopsWritesEverythingMarkedAborted) {
  TempDir dir("sigint");
  Sim sim({"--ttft-ms", "10", "--itl-ms", "50"}, dir.path);
  ASSERT_NE(sim.port(), 0);
  const pid_t pid = spawn({"run", "--port", sim.port_text(), "--num-prompts", "8", "--random-output-len", "200",
                           "--concurrency", "2", "4", "--output-json", "c.json", "--no-preflight-request"},
                          dir.path, "run");
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  ::kill(pid, SIGINT);
  const auto t0 = std::chrono::steady_clock::now();
  const int code = wait_exit(pid, 15);
  const double stop_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(code, 130) << slurp(dir.path / "run.err");
  EXPECT_LT(stop_s, sb::test_timing::prompt_s(6.0));
  const Json doc = Json::parse(slurp(dir.path / "c.json"));
  EXPECT_EQ(doc["aborted"], true);
  ASSERT_EQ(doc["stages"].size(), 1u);  // the second stage never started
  EXPECT_EQ(doc["stages"][0]["servebench"]["aborted"], true);
  const std::string jsonl = slurp(dir.path / "c.requests.jsonl");
  EXPECT_EQ(std::count(jsonl.begin(), jsonl.end(), '\n'), 8);
  EXPECT_NE(jsonl.find("\"aborted\": true"), std::string::npos);
}

TEST(RunE2e, SigtermStopsLikeCtrlC) {
  TempDir dir("sigterm");
  Sim sim({"--ttft-ms", "10", "--itl-ms", "50"}, dir.path);
  ASSERT_NE(sim.port(), 0);
  const pid_t pid = spawn({"run", "--port", sim.port_text(), "--num-prompts", "4", "--random-output-len", "200",
                           "--concurrency", "2", "--output-json", "t.json", "--no-preflight-request"},
                          dir.path, "run");
  std::this_thread::sleep_for(std::chrono::milliseconds(1000));
  ::kill(pid, SIGTERM);
  EXPECT_EQ(wait_exit(pid, 15), 130) << slurp(dir.path / "run.err");
  EXPECT_NE(slurp(dir.path / "run.err").find("aborted: outputs written and marked \"aborted\": true"),
            std::string::npos);
  EXPECT_EQ(Json::parse(slurp(dir.path / "t.json"))["aborted"], true);
}

}  // namespace
}  // namespace sb::e2e
