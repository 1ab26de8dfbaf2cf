// `servebench run --concurrency auto` / `--request-rate auto` against `servebench sim` with a known
// capacity (fixed costs: first token after 5 ms, then one every 2 ms; at most 12 requests served at
// once): the search finds the knee within its precision, every stage it ran is in the outputs in
// ascending load order under a unique name, and the sweep document says how the stages were chosen.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "e2e/run_process.hpp"
#include "support/timing_bounds.hpp"

namespace sb::e2e {
namespace {

using Json = nlohmann::json;

// The swept value of each stage of a sweep document, in document order.
std::vector<double> knee_stage_loads(const Json& doc, const char* key) {
  std::vector<double> out;
  for (const Json& s : doc["stages"]) out.push_back(s[key].is_number() ? s[key].get<double>() : -1);
  return out;
}

// The load_value column of a --csv file, in row order.
std::vector<double> knee_csv_loads(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  std::getline(in, line);  // header: stage_index,load_mode,load_value,...
  std::vector<double> out;
  while (std::getline(in, line)) {
    const std::size_t a = line.find(','), b = line.find(',', a + 1), c = line.find(',', b + 1);
    out.push_back(std::stod(line.substr(b + 1, c - b - 1)));
  }
  return out;
}

void expect_ascending_and_unique(const std::vector<double>& loads) {
  EXPECT_TRUE(std::is_sorted(loads.begin(), loads.end())) << ::testing::PrintToString(loads);
  EXPECT_EQ(std::set<double>(loads.begin(), loads.end()).size(), loads.size()) << ::testing::PrintToString(loads);
}

TEST(KneeSearchE2e, ConcurrencyAutoFindsAFixedCapacityOf12) {
  TempDir dir("knee_conc");
  // Four times the file's costs (20 ms, then 8 ms a token: 76 ms a request). At c=16 a third of
  // each round's slots wait for the client to send their next request, so a refill delay (ms on a
  // starved host: ASan, a parallel suite) costs that stage its share of a round; at 19 ms a request
  // it cost c=16 6 % against c=32, outside the 5 % plateau tolerance, and put the knee at 16-17.
  Sim sim({"--cost", "fixed", "--max-concurrency", "12", "--itl-ms", "8", "--ttft-ms", "20"}, dir.path);
  ASSERT_NE(sim.port(), 0);
  // 48 requests a stage: whole rounds at 8, 12 and 16 in flight, so c=10 or 11 needs a fifth round.
  RunResult r = run_servebench({"--port", sim.port_text(), "--num-prompts", "48", "--random-input-len", "8",
                                "--random-output-len", "8", "--concurrency", "auto", "--knee-precision", "10%",
                                "--output-json", "auto.json", "--csv", "auto.csv", "--save-result", "--result-dir",
                                "vllm", "--result-filename", "st.json", "--label", "e2e"},
                               dir.path, {}, 120);
  ASSERT_EQ(r.code, 0) << r.err << r.out;
  const Json doc = Json::parse(slurp(dir.path / "auto.json"));
  const Json& ls = doc["load_search"];
  EXPECT_EQ(ls["mode"], "auto");
  EXPECT_EQ(ls["load_mode"], "concurrency");
  EXPECT_EQ(ls["precision"], 0.1);
  EXPECT_EQ(doc["config"]["load"]["search"], "auto");
  // Every stage run, ascending by concurrency, in the document, the CSV and as vLLM files.
  const std::vector<double> loads = knee_stage_loads(doc, "max_concurrency");
  EXPECT_EQ(static_cast<int>(loads.size()), ls["stages_run"].get<int>());
  EXPECT_LE(loads.size(), 12u);
  expect_ascending_and_unique(loads);
  EXPECT_EQ(knee_csv_loads(slurp(dir.path / "auto.csv")), loads);
  std::set<std::string> files;
  for (const auto& e : fs::directory_iterator(dir.path / "vllm")) files.insert(e.path().filename().string());
  EXPECT_EQ(files.size(), loads.size());
  SB_TIMING_CHECKS_FOLLOW();  // where the knee lands is a timing
  EXPECT_EQ(ls["stopped"], "precision");
  ASSERT_TRUE(ls["bracket"][0].is_number() && ls["bracket"][1].is_number()) << ls.dump();
  const double lo = ls["bracket"][0], hi = ls["bracket"][1];
  EXPECT_NEAR(ls["knee"].get<double>(), 12, 1.2) << ls.dump();
  EXPECT_TRUE(hi - lo <= 1 || (hi - lo) / lo <= 0.1) << ls.dump();
  for (double c : {1.0, 2.0, 4.0, 8.0, 16.0, 32.0, lo, hi})
    EXPECT_NE(std::find(loads.begin(), loads.end(), c), loads.end()) << c;
  EXPECT_EQ(files.count("st-c12.json"), 1u);
  // The console says each added stage and why, and how the search ended.
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(knee search: c=1[0-5] \(bracket 8-16\)\n)"))) << r.out;
  EXPECT_NE(r.out.find("knee search: c=16 (doubling: throughput still growing at c=8)\n"), std::string::npos);
  EXPECT_NE(r.out.find("knee search: knee between c="), std::string::npos) << r.out;
}

TEST(KneeSearchE2e, ConcurrencyAutoFindsTheEngineBatchLimit) {
  // The continuous-batching model serves at most --max-num-seqs 16 sequences per step: throughput
  // keeps rising (concavely) up to 16 in flight and is flat after it. At --time-scale 2 (not 10) the
  // modelled steps outweigh the sim's own CPU time on a starved host, and c=16 is full: a 16-slot
  // engine is full at c=16 only while the client refills each slot at once, and the client's
  // wall-clock refill counts K times in modelled time (at 5x on a Firecracker VM c=16 read more
  // than 5 % below c=20 and the knee landed at 22).
  TempDir dir("knee_engine");
  Sim sim({"--cost", "engine", "--model-preset", "llama-3-8b", "--gpu-preset", "h100", "--time-scale", "2",
           "--max-num-seqs", "16"},
          dir.path);
  ASSERT_NE(sim.port(), 0);
  RunResult r = run_servebench({"--port", sim.port_text(), "--num-prompts", "64", "--random-input-len", "256",
                                "--random-output-len", "32", "--concurrency", "auto", "--output-json", "e.json"},
                               dir.path, {}, 120);
  ASSERT_EQ(r.code, 0) << r.err << r.out;
  const Json ls = Json::parse(slurp(dir.path / "e.json"))["load_search"];
  EXPECT_EQ(ls["load_mode"], "concurrency");
  SB_TIMING_CHECKS_FOLLOW();
  EXPECT_EQ(ls["stopped"], "precision") << r.out;
  EXPECT_NEAR(ls["knee"].get<double>(), 16, 1.6) << ls.dump();
}

TEST(KneeSearchE2e, RateAutoLandsOnTheServerCapacity) {
  TempDir dir("knee_rate");
  Sim sim({"--cost", "fixed", "--max-concurrency", "12", "--itl-ms", "2", "--ttft-ms", "5"}, dir.path);
  ASSERT_NE(sim.port(), 0);
  // 16 tokens: 5 + 15 x 2 = 35 ms a request, 12 at once: 343 req/s.
  const double capacity_rps = 12 / 0.035;
  RunResult r = run_servebench({"--port", sim.port_text(), "--num-prompts", "120", "--random-input-len", "8",
                                "--random-output-len", "16", "--request-rate", "auto", "--burstiness", "inf",
                                "--output-json", "rate.json"},
                               dir.path, {}, 120);
  ASSERT_EQ(r.code, 0) << r.err << r.out;
  const Json doc = Json::parse(slurp(dir.path / "rate.json"));
  const Json& ls = doc["load_search"];
  EXPECT_EQ(ls["load_mode"], "request_rate");
  const std::vector<double> rates = knee_stage_loads(doc, "request_rate");
  expect_ascending_and_unique(rates);
  SB_TIMING_CHECKS_FOLLOW();
  EXPECT_NE(r.out.find("knee search: rate 2"), std::string::npos) << r.out;
  EXPECT_EQ(ls["stopped"], "precision");
  // It started from the test request's throughput (at most 1 / 35 ms in two digits), not from 1 req/s.
  EXPECT_GE(ls["start"].get<double>(), 10);
  EXPECT_LE(ls["start"].get<double>(), 28);
  ASSERT_TRUE(ls["knee"].is_number()) << ls.dump();
  EXPECT_NEAR(ls["knee"].get<double>(), capacity_rps, 0.1 * capacity_rps) << ls.dump();
}

// The most requests of one stage in flight at once, from the per-request JSONL (sent_ms to done_ms,
// both from the stage's start; a slot freed at done_ms is taken by a later sent_ms).
std::map<int, int> knee_max_in_flight(const fs::path& jsonl) {
  std::map<int, std::vector<std::pair<double, int>>> events;
  std::istringstream in(slurp(jsonl));
  for (std::string line; std::getline(in, line);) {
    const Json r = Json::parse(line);
    if (!r["sent_ms"].is_number() || !r["done_ms"].is_number()) continue;
    events[r["stage"].get<int>()].push_back({r["sent_ms"].get<double>(), 1});
    events[r["stage"].get<int>()].push_back({r["done_ms"].get<double>(), -1});
  }
  std::map<int, int> out;
  for (auto& [stage, ev] : events) {
    std::sort(ev.begin(), ev.end());  // at one time, a finish (-1) before a start (+1)
    int now = 0;
    for (const auto& e : ev) out[stage] = std::max(out[stage], now += e.second);
  }
  return out;
}

TEST(KneeSearchE2e, RateAutoHonoursMaxConcurrency) {
  TempDir dir("knee_rate_limit");
  Sim sim({"--cost", "fixed", "--itl-ms", "2", "--ttft-ms", "5"}, dir.path);  // no server limit
  ASSERT_NE(sim.port(), 0);
  // The client's 6 slots are the capacity: 6 / 35 ms = 171 req/s; the uncapped sim serves thousands.
  const double capacity_rps = 6 / 0.035;
  RunResult r = run_servebench({"--port", sim.port_text(), "--num-prompts", "120", "--random-input-len", "8",
                                "--random-output-len", "16", "--request-rate", "auto", "--burstiness", "inf",
                                "--max-concurrency", "6", "--output-json", "rate.json"},
                               dir.path, {}, 120);
  ASSERT_EQ(r.code, 0) << r.err << r.out;
  const Json doc = Json::parse(slurp(dir.path / "rate.json"));
  for (const Json& s : doc["stages"]) EXPECT_EQ(s["max_concurrency"], 6);
  // The cap itself, counted from what was sent: never more than 6 requests of a stage in flight.
  const std::map<int, int> in_flight = knee_max_in_flight(dir.path / "rate.requests.jsonl");
  ASSERT_EQ(in_flight.size(), doc["stages"].size());
  int most = 0;
  for (const auto& [stage, n] : in_flight) {
    EXPECT_LE(n, 6) << "stage " << stage;
    most = std::max(most, n);
  }
  EXPECT_EQ(most, 6);  // and the stages far above the capacity filled it
  ASSERT_TRUE(doc["load_search"]["knee"].is_number()) << doc["load_search"].dump();
  // What the cap does to throughput holds in any build: 6 slots of 35 ms can serve no more.
  double best_rps = 0;
  for (const Json& s : doc["stages"]) best_rps = std::max(best_rps, s["request_throughput"].get<double>());
  EXPECT_LE(best_rps, 1.05 * capacity_rps) << doc["stages"].dump();
  SB_TIMING_CHECKS_FOLLOW();
  // Where the search lands is what RateAutoLandsOnTheServerCapacity holds to 10 %. Here the
  // plateau is the client's own, approached within the search's 5 % only slowly (a stage offered
  // the capacity reads about 10 % under it: its start and drain), so where on it the knee lands is
  // noise: in CI's suite on a Firecracker VM it landed at 138, 224, and once at 420 (three stages
  // between 224 and 392 read 5 % low, 420 did not), while alone it landed at 163-168 in 7 of 7 runs.
  // Held here: the search saw the plateau (its best stage near the capacity) and put the knee at
  // or above where the capacity starts to bind.
  EXPECT_GE(best_rps, 0.85 * capacity_rps) << doc["stages"].dump();
  EXPECT_GE(doc["load_search"]["knee"].get<double>(), 0.7 * capacity_rps) << doc["load_search"].dump();
}

TEST(KneeSearchE2e, StageBudgetEndsASearchStillGrowing) {
  TempDir dir("knee_budget");
  Sim sim({"--cost", "fixed", "--itl-ms", "2", "--ttft-ms", "5"}, dir.path);
  ASSERT_NE(sim.port(), 0);
  RunResult r = run_servebench({"--port", sim.port_text(), "--num-prompts", "16", "--random-input-len", "8",
                                "--random-output-len", "4", "--concurrency", "auto", "--max-stages", "3",
                                "--output-json", "b.json"},
                               dir.path);
  ASSERT_EQ(r.code, 0) << r.err << r.out;
  const Json doc = Json::parse(slurp(dir.path / "b.json"));
  EXPECT_EQ(knee_stage_loads(doc, "max_concurrency"), (std::vector<double>{1, 2, 4}));
  EXPECT_EQ(doc["load_search"]["stopped"], "budget");
  EXPECT_EQ(doc["load_search"]["bracket"], Json::parse("[4, null]"));
  EXPECT_NE(r.out.find("knee search: throughput still growing at c=4 when the budget of 3 stages ran out"),
            std::string::npos) << r.out;
}

TEST(KneeSearchE2e, FailingStagesEndTheSearchAndThePreflightStillRuns) {
  TempDir dir("knee_fail");
  Sim sim({"--cost", "fixed", "--itl-ms", "2", "--ttft-ms", "5", "--fail-ratio", "1", "--fail-status", "500"},
          dir.path);
  ASSERT_NE(sim.port(), 0);
  const std::vector<std::string> args = {"--port", sim.port_text(), "--num-prompts", "8", "--random-input-len", "8",
                                         "--random-output-len", "4", "--concurrency", "auto", "--output-json", "f.json"};
  // The test request fails first, on every try: exit 7 (the server answers but fails), nothing written.
  RunResult pre = run_servebench(args, dir.path);
  EXPECT_EQ(pre.code, 7) << pre.err;
  EXPECT_FALSE(fs::exists(dir.path / "f.json"));
  std::vector<std::string> no_pre = args;
  no_pre.push_back("--no-preflight-request");
  RunResult r = run_servebench(no_pre, dir.path);
  EXPECT_EQ(r.code, 4) << r.err;  // --max-failure-ratio 0.5 by default: the first stage stops the search
  const Json doc = Json::parse(slurp(dir.path / "f.json"));
  EXPECT_EQ(doc["stages"].size(), 1u);
  EXPECT_EQ(doc["load_search"]["stopped"], "failures");
  EXPECT_EQ(doc["load_search"]["stages_run"], 1);
  EXPECT_NE(r.out.find("knee search: stopped by failures after 1 stage"), std::string::npos) << r.out;
}

TEST(KneeSearchE2e, CtrlCEndsTheSearchAsAborted) {
  TempDir dir("knee_sigint");
  Sim sim({"--cost", "fixed", "--ttft-ms", "1", "--itl-ms", "10"}, dir.path);
  ASSERT_NE(sim.port(), 0);
  // 30 requests of ~40 ms at c=1, then 15 rounds at c=2: the signal comes during the second stage.
  const pid_t pid = spawn({"run", "--port", sim.port_text(), "--num-prompts", "30", "--random-input-len", "4",
                           "--random-output-len", "5", "--concurrency", "auto", "--output-json", "s.json"},
                          dir.path, "run");
  const auto t0 = std::chrono::steady_clock::now();
  while (std::chrono::steady_clock::now() - t0 < std::chrono::seconds(20)) {
    const std::string s = slurp(dir.path / "s.requests.jsonl");
    if (std::count(s.begin(), s.end(), '\n') >= 33) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ::kill(pid, SIGINT);
  ASSERT_EQ(wait_exit(pid, 15), 130) << slurp(dir.path / "run.err");
  const Json doc = Json::parse(slurp(dir.path / "s.json"));
  EXPECT_EQ(doc["aborted"], true);
  EXPECT_EQ(doc["load_search"]["stopped"], "aborted");
  EXPECT_GE(doc["stages"].size(), 2u);
}

TEST(KneeSearchE2e, BadSearchFlagsAreRefusedBeforeAnyLoad) {
  TempDir dir("knee_flags");
  const std::pair<std::vector<std::string>, std::string> cases[] = {
      {{"--concurrency", "auto", "4"}, "--concurrency: auto stands alone"},
      {{"--concurrency", "auto", "--knee-precision", "150%"}, "--knee-precision: must be in (0, 1)"},
      {{"--concurrency", "auto", "--knee-precision", "ten"}, "--knee-precision: 'ten' is not"},
      {{"--request-rate", "auto", "--max-stages", "2"}, "--max-stages: must be >= 3"},
      {{"--concurrency", "4", "--max-stages", "5"}, "--max-stages: needs --concurrency auto"},
      {{"--request-rate", "auto", "--concurrency", "4"}, "--concurrency: cannot go with --request-rate auto"},
  };
  for (const auto& [args, message] : cases) {
    std::vector<std::string> all = {"--port", "1", "--num-prompts", "4"};
    all.insert(all.end(), args.begin(), args.end());
    RunResult r = run_servebench(all, dir.path);
    SCOPED_TRACE(message);
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
  }
}

}  // namespace
}  // namespace sb::e2e
