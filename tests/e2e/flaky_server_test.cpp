// A flaky server is measured, not refused (issue 37): against `servebench sim` with seeded faults
// the same run fails the same requests every time, and the test request before the load stops the
// run only for what it can judge: a configuration fault (exit 3, at once), a server that fails
// every try (exit 7, after retries), and otherwise lets the load measure the failures.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <sstream>

#include "e2e/run_process.hpp"
#include "protocol/request_id.hpp"
#include "sim/faults.hpp"

namespace sb::e2e {
namespace {

using Json = nlohmann::json;

// The flaky server, with short fixed costs so a run takes well under a second.
const std::vector<std::string> kFlakySim = {"--cost", "fixed", "--ttft-ms", "2", "--itl-ms", "1",
                                            "--fail-ratio", "0.15", "--drop-ratio", "0.1",
                                            "--malformed-ratio", "0.05", "--seed", "7"};

struct FlakyOutcome {
  int code = -1;
  std::map<std::string, std::string> by_name;  // request's name in the run -> outcome
  std::map<std::string, int> failures;         // category -> count (sweep document)
  std::string err;
};

// One `run --max-concurrency 16 --num-prompts 40` against `port`, its per-request outcomes by the
// request's name in the run (the x-request-id less its per-run tag).
FlakyOutcome flaky_run(const Sim& sim, const fs::path& dir, int index) {
  const std::string json = "r" + std::to_string(index) + ".json";
  const RunResult r = run_servebench({"--port", sim.port_text(), "--max-concurrency", "16", "--num-prompts", "40",
                                      "--random-input-len", "8", "--random-output-len", "6", "--output-json", json},
                                     dir);
  FlakyOutcome o;
  o.code = r.code;
  o.err = r.err;
  if (!fs::exists(dir / json)) return o;
  const Json stage = Json::parse(slurp(dir / json))["stages"][0];
  for (const auto& [category, e] : stage["servebench"]["errors"].items()) o.failures[category] = e["count"].get<int>();
  std::istringstream lines(slurp(dir / ("r" + std::to_string(index) + ".requests.jsonl")));
  for (std::string line; std::getline(lines, line);) {
    const Json rec = Json::parse(line);
    const std::string id = rec["request_id"].get<std::string>();
    o.by_name[std::string(request_name_in_run(id))] = rec["outcome"].get<std::string>();
  }
  return o;
}

TEST(FlakyServerE2e, SameSeedFailsTheSameRequestsInEveryRun) {
  TempDir dir("flaky_repeat");
  std::vector<FlakyOutcome> runs;
  {
    Sim sim(kFlakySim, dir.path);
    ASSERT_NE(sim.port(), 0);
    for (int i = 0; i < 3; ++i) runs.push_back(flaky_run(sim, dir.path, i));
  }
  // A fresh simulator with the same seed: no state carried over from the runs before.
  fs::create_directories(dir.path / "fresh");
  Sim fresh(kFlakySim, dir.path / "fresh");
  ASSERT_NE(fresh.port(), 0);
  runs.push_back(flaky_run(fresh, dir.path, 3));

  const FlakyOutcome& first = runs.front();
  ASSERT_EQ(first.code, 0) << first.err;  // the load ran: the test request did not refuse the server
  ASSERT_EQ(first.by_name.size(), 40u);
  int failed = 0;
  for (const auto& [category, n] : first.failures) failed += n;
  EXPECT_GT(failed, 0) << "the seed must fail some requests, or this test proves nothing";
  EXPECT_LT(failed, 40);
  for (std::size_t i = 1; i < runs.size(); ++i) {
    EXPECT_EQ(runs[i].code, first.code) << i << "\n" << runs[i].err;
    EXPECT_EQ(runs[i].failures, first.failures) << "run " << i;
    EXPECT_EQ(runs[i].by_name, first.by_name) << "run " << i;  // the same requests, not only as many
  }
}

struct ClassCase {
  std::string what;
  std::vector<std::string> sim;  // extra sim flags
  std::vector<std::string> run;  // extra run flags
  int code;
  std::string cause;             // in the one stderr line
};

// The one line `servebench run: ...` on stderr (there must be exactly one).
std::string error_line(const std::string& err) {
  std::istringstream lines(err);
  std::string found;
  int count = 0;
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with("servebench run: ")) {
      found = line;
      ++count;
    }
  }
  return count == 1 ? found : "";
}

TEST(FlakyServerE2e, EachClassOfTestRequestFailureHasItsCodeAndOneLineCause) {
  const std::vector<ClassCase> cases = {
      {"401", {"--api-key", "sk-right"}, {}, 3, "refused the API key"},
      {"unknown model", {}, {"--model", "gpt-9"}, 3, "'gpt-9' is not served"},
      {"body rejected (400)", {"--max-model-len", "16"}, {"--random-input-len", "32"}, 3,
       "failed (http_error): HTTP 400"},
      {"500 always", {"--fail-ratio", "1", "--fail-status", "500"}, {}, 7,
       "failed on each of 4 tries, the last (http_error): HTTP 500"},
      {"429 always", {"--fail-ratio", "1", "--fail-status", "429"}, {}, 7,
       "failed on each of 4 tries, the last (http_error): HTTP 429"},
      {"cut stream always", {"--drop-ratio", "1"}, {}, 7, "failed on each of 4 tries, the last (dropped)"},
      {"malformed always", {"--malformed-ratio", "1"}, {}, 7, "failed on each of 4 tries, the last (malformed)"},
      {"timeout", {"--ttft-ms", "3000"}, {"--timeout-s", "0.5"}, 7, "failed (timeout)"},
  };
  TempDir dir("flaky_classes");
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const ClassCase& c = cases[i];
    const fs::path sub = dir.path / std::to_string(i);
    fs::create_directories(sub);
    std::vector<std::string> sim_args = {"--itl-ms", "1"};
    if (std::find(c.sim.begin(), c.sim.end(), "--ttft-ms") == c.sim.end()) sim_args.insert(sim_args.end(), {"--ttft-ms", "1"});
    sim_args.insert(sim_args.end(), c.sim.begin(), c.sim.end());
    Sim sim(sim_args, sub);
    ASSERT_NE(sim.port(), 0) << c.what;
    std::vector<std::string> run_args = {"--port", sim.port_text(), "--num-prompts", "3", "--random-input-len", "4",
                                         "--random-output-len", "4", "--output-json", "c.json"};
    run_args.insert(run_args.end(), c.run.begin(), c.run.end());
    const RunResult r = run_servebench(run_args, sub, {{"OPENAI_API_KEY", "sk-WRONG"}});
    EXPECT_EQ(r.code, c.code) << c.what << "\n" << r.err;
    const std::string line = error_line(r.err);
    EXPECT_NE(line.find(c.cause), std::string::npos) << c.what << "\n" << r.err;
    EXPECT_FALSE(fs::exists(sub / "c.json")) << c.what << ": nothing is written before the load";
  }
  // Connection refused: nothing listens on port 1.
  const RunResult refused = run_servebench({"--port", "1", "--num-prompts", "1"}, dir.path);
  EXPECT_EQ(refused.code, 3) << refused.err;
  EXPECT_NE(error_line(refused.err).find("127.0.0.1:1"), std::string::npos) << refused.err;
}

TEST(FlakyServerE2e, ServerFailingEveryTryIsMeasuredUnderMaxFailureRatioOne) {
  TempDir dir("flaky_goes_on");
  Sim sim({"--ttft-ms", "1", "--itl-ms", "1", "--fail-ratio", "1", "--fail-status", "503"}, dir.path);
  ASSERT_NE(sim.port(), 0);
  const RunResult r = run_servebench({"--port", sim.port_text(), "--num-prompts", "5", "--random-input-len", "4",
                                      "--random-output-len", "2", "--output-json", "m.json", "--max-failure-ratio", "1"},
                                     dir.path);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("warning: the test request failed on each of 4 tries, the last (http_error): HTTP 503"),
            std::string::npos) << r.err;
  EXPECT_NE(r.err.find("going on (--max-failure-ratio 1): the load measures the failures\n"), std::string::npos)
      << r.err;
  ASSERT_TRUE(fs::exists(dir.path / "m.json"));
  EXPECT_EQ(Json::parse(slurp(dir.path / "m.json"))["stages"][0]["failed"], 5);
}

// A seed whose draws fail the first try of the test request and pass its second and the load's
// three requests (found with the simulator's own injector, so the test needs no magic number).
std::uint64_t seed_failing_only_the_first_try() {
  for (std::uint64_t seed = 1; seed < 10000; ++seed) {
    const sim::FaultInjector faults({0.5, 500, 0, 0, seed});
    const auto fails = [&](const char* name) { return faults.pick(name, 4).kind != sim::FaultKind::none; };
    if (fails("preflight") && !fails("preflight-2") && !fails("0") && !fails("1") && !fails("2")) return seed;
  }
  return 0;
}

TEST(FlakyServerE2e, TestRequestFailingOnceIsRetriedAndTheLoadRuns) {
  const std::uint64_t seed = seed_failing_only_the_first_try();
  ASSERT_NE(seed, 0u);
  TempDir dir("flaky_retry");
  Sim sim({"--ttft-ms", "1", "--itl-ms", "1", "--fail-ratio", "0.5", "--seed", std::to_string(seed)}, dir.path);
  ASSERT_NE(sim.port(), 0);
  const RunResult r = run_servebench({"--port", sim.port_text(), "--num-prompts", "3", "--random-input-len", "4",
                                      "--random-output-len", "4", "--output-json", "t.json"},
                                     dir.path);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("warning: the test request failed 1 of 2 tries (http_error): HTTP 500"), std::string::npos)
      << r.err;
  ASSERT_TRUE(fs::exists(dir.path / "t.json"));
  EXPECT_EQ(Json::parse(slurp(dir.path / "t.json"))["stages"][0]["completed"], 3);
}

}  // namespace
}  // namespace sb::e2e
