// `servebench run` exit paths against `servebench sim`: a base URL ending in /v1, flag values the
// client cannot honour (thread count, a schedule beyond the clock's range).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "e2e/run_process.hpp"

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
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 5.0);
}

TEST(RunExitsE2e, RateWhoseScheduleOverflowsIsRefused) {
  TempDir dir("exits_rate");
  RunResult r = run_servebench({"--port", "1", "--request-rate", "1e-300"}, dir.path);
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find("--request-rate: 1e-300 req/s for 1000 requests"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace sb::e2e
