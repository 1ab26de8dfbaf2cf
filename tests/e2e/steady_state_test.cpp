// End-to-end (issue #10 "Done when", deliverable 3): steady-state stages against `servebench sim`
// with a fixed cost (TTFT and ITL known, no server-side limit), so the right answers are known:
// a --stage-seconds stage keeps its concurrency in flight for >= 90 % of its window and says so; a
// prompt-bounded c=128 stage of 200 prompts is mostly ramp-up and drain and gets the warning; an
// open-loop stage whose whole-stage rate falls short only through its drain tail gets it too;
// --repeats 2 keeps one entry and one vLLM file per stage per repeat and reports the spread.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <set>
#include <sstream>

#include "e2e/run_process.hpp"
#include "support/timing_bounds.hpp"

namespace sb::e2e {
namespace {

using nlohmann::json;

json read_steady_json(const fs::path& p) { return json::parse(slurp(p)); }

bool has_warning(const json& stage, const std::string& kind) {
  for (const json& w : stage["servebench"]["steady_state"]["warnings"])
    if (w["kind"] == kind) return true;
  return false;
}

TEST(SteadyStateE2e, StageSecondsHoldConcurrencyAndReusePrompts) {
  TempDir dir("steady_hold");
  // 20 ms + 15 x 5 ms = 95 ms per request: c=16 completes ~168 req/s, ~1680 in 10 s, more than
  // the 1000 prompts of the default --num-prompts, which are reused with unique ids.
  Sim sim({"--ttft-ms", "20", "--itl-ms", "5"}, dir.path);
  ASSERT_NE(sim.port(), 0) << slurp(dir.path / "sim.err");
  RunResult r = run_servebench({"--port", sim.port_text(), "--random-input-len", "16", "--random-output-len", "16",
                                "--concurrency", "16", "--stage-seconds", "10", "--dataset-name", "random",
                                "--output-json", "sweep.json", "--disable-tqdm"},
                               dir.path, {}, 60);
  ASSERT_EQ(r.code, 0) << r.err;
  // No --num-prompts: 1000 prompts by default, cycled if the stage needs more.
  const json doc = read_steady_json(dir.path / "sweep.json");
  ASSERT_EQ(doc["stages"].size(), 1u);
  const json& s = doc["stages"][0];
  EXPECT_GE(s["held_fraction"].get<double>(), 0.90) << s.dump();
  EXPECT_GT(s["window_s"].get<double>(), 9.0);
  EXPECT_LE(s["window_start_s"].get<double>() + s["window_s"].get<double>(), 10.0 + 1e-6);
  EXPECT_GT(s["duration"].get<double>(), 10.0);  // the drain after the deadline
  EXPECT_NEAR(s["mean_in_flight"].get<double>(), 16, 1.6);
  // The server's own rate: 16 slots / 95 ms = 168 req/s at most; a loaded client may lose some.
  const double steady_rps = s["steady_request_throughput"].get<double>();
  EXPECT_LE(steady_rps, 16 / 0.095 * 1.03);
  EXPECT_GE(steady_rps, 16 / 0.095 * 0.5);
  EXPECT_GT(s["num_prompts"].get<int>(), 1000);  // the prompts went round more than once
  EXPECT_GE(s["steady_median_ttft_ms"].get<double>(), 19.5);
  EXPECT_LE(s["steady_median_ttft_ms"].get<double>(), sb::test_timing::upper_bound(30));
  EXPECT_GE(s["steady_median_itl_ms"].get<double>(), 4.5);
  EXPECT_LE(s["steady_median_itl_ms"].get<double>(), sb::test_timing::upper_bound(7));
  const json& st = s["servebench"]["steady_state"];
  EXPECT_TRUE(st["duration_bounded"].get<bool>());
  EXPECT_NEAR(st["littles_law_ratio"].get<double>(), 1, 0.1);
  EXPECT_FALSE(has_warning(s, "drain_dominated"));
  EXPECT_FALSE(has_warning(s, "not_held"));
  EXPECT_EQ(s["num_prompts"].get<int>(), s["completed"].get<int>() + s["failed"].get<int>());
  // The console says it beside vLLM's block.
  EXPECT_NE(r.out.find("Steady state: window "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" at c=16, "), std::string::npos) << r.out;
  // Every request kept a unique id, reused prompts included.
  std::set<std::string> ids;
  int lines = 0;
  std::istringstream jl(slurp(dir.path / "sweep.requests.jsonl"));
  for (std::string line; std::getline(jl, line); ++lines) ids.insert(json::parse(line)["request_id"].get<std::string>());
  EXPECT_EQ(lines, s["num_prompts"].get<int>());
  EXPECT_EQ(ids.size(), static_cast<std::size_t>(lines));
}

TEST(SteadyStateE2e, PromptBoundC128StageGetsTheDrainWarning) {
  TempDir dir("steady_drain");
  Sim sim({"--ttft-ms", "20", "--itl-ms", "5"}, dir.path);
  ASSERT_NE(sim.port(), 0) << slurp(dir.path / "sim.err");
  RunResult r = run_servebench({"--port", sim.port_text(), "--num-prompts", "200", "--random-input-len", "16",
                                "--random-output-len", "16", "--concurrency", "128", "--output-json", "sweep.json",
                                "--disable-tqdm"},
                               dir.path, {}, 60);
  ASSERT_EQ(r.code, 0) << r.err;
  // 128 sent at t0, the other 72 as the first finish: the window (128 in flight until the last
  // send) is about 72/128 of one request's time, the stage one more request's time after it.
  const json s = read_steady_json(dir.path / "sweep.json")["stages"][0];
  EXPECT_TRUE(has_warning(s, "drain_dominated")) << s["servebench"]["steady_state"].dump();
  EXPECT_LT(s["window_s"].get<double>() / s["duration"].get<double>(), 0.8);
  EXPECT_FALSE(s["servebench"]["steady_state"]["duration_bounded"].get<bool>());
  EXPECT_NE(r.out.find("warning: c=128: the steady window is"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--stage-seconds"), std::string::npos);
}

TEST(SteadyStateE2e, OpenLoopDrainTailGetsTheWarning) {
  TempDir dir("steady_rate");
  // 100 arrivals at 32 req/s end at ~3.1 s; each request takes 20 + 63 x 20 = 1280 ms, so the stage
  // lasts ~4.4 s: 100 / 4.4 s is ~70 % of the offered rate although the server kept up (no limit).
  Sim sim({"--ttft-ms", "20", "--itl-ms", "20"}, dir.path);
  ASSERT_NE(sim.port(), 0) << slurp(dir.path / "sim.err");
  RunResult r = run_servebench({"--port", sim.port_text(), "--num-prompts", "100", "--random-input-len", "16",
                                "--random-output-len", "64", "--request-rate", "32", "--output-json", "sweep.json",
                                "--disable-tqdm"},
                               dir.path, {}, 60);
  ASSERT_EQ(r.code, 0) << r.err;
  const json s = read_steady_json(dir.path / "sweep.json")["stages"][0];
  const json& st = s["servebench"]["steady_state"];
  EXPECT_LT(st["rate_fraction"].get<double>(), 0.85) << st.dump();
  EXPECT_TRUE(has_warning(s, "drain_dominated")) << st.dump();
  EXPECT_TRUE(s["held_fraction"].is_null());  // open loop: no target concurrency
  EXPECT_NE(r.out.find("warning: rate 32: achieved"), std::string::npos) << r.out;
}

TEST(SteadyStateE2e, RepeatsKeepEveryPassAndReportTheSpread) {
  TempDir dir("steady_repeats");
  Sim sim({"--ttft-ms", "10", "--itl-ms", "2"}, dir.path);
  ASSERT_NE(sim.port(), 0) << slurp(dir.path / "sim.err");
  RunResult r = run_servebench({"--port", sim.port_text(), "--num-prompts", "40", "--random-input-len", "16",
                                "--random-output-len", "8", "--concurrency", "2", "4", "--repeats", "2",
                                "--output-json", "sweep.json", "--save-result", "--result-dir", "res",
                                "--disable-tqdm"},
                               dir.path, {}, 60);
  ASSERT_EQ(r.code, 0) << r.err;
  const json doc = read_steady_json(dir.path / "sweep.json");
  ASSERT_EQ(doc["stages"].size(), 4u);
  std::vector<int> repeats, conc;
  for (const json& s : doc["stages"]) {
    repeats.push_back(s["servebench"]["repeat"].get<int>());
    conc.push_back(s["max_concurrency"].get<int>());
  }
  EXPECT_EQ(repeats, (std::vector<int>{0, 0, 1, 1}));
  EXPECT_EQ(conc, (std::vector<int>{2, 4, 2, 4}));
  const json& rep = doc["repeats"];
  EXPECT_EQ(rep["count"], 2);
  ASSERT_EQ(rep["stages"].size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    const json& sp = rep["stages"][i]["request_throughput"];
    const double a = doc["stages"][i]["request_throughput"], b = doc["stages"][i + 2]["request_throughput"];
    EXPECT_DOUBLE_EQ(sp["min"].get<double>(), std::min(a, b));
    EXPECT_DOUBLE_EQ(sp["max"].get<double>(), std::max(a, b));
    EXPECT_NEAR(sp["cv"].get<double>(), std::abs(a - b) / (a + b), 1e-9);  // two values: |a-b|/2 / mean
  }
  EXPECT_NE(r.out.find("Spread across repeats"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("Repeat 2 of 2"), std::string::npos) << r.err;
  // One vLLM file per stage per repeat: none overwritten.
  int files = 0;
  for (const auto& e : fs::directory_iterator(dir.path / "res")) files += e.path().extension() == ".json" ? 1 : 0;
  EXPECT_EQ(files, 4);
  // Ids stay unique across repeats.
  std::set<std::string> ids;
  int lines = 0;
  std::istringstream jl(slurp(dir.path / "sweep.requests.jsonl"));
  for (std::string line; std::getline(jl, line); ++lines) ids.insert(json::parse(line)["request_id"].get<std::string>());
  EXPECT_EQ(lines, 160);
  EXPECT_EQ(ids.size(), 160u);
}

TEST(SteadyStateE2e, BadBoundsAreRefusedWithTheFlag) {
  TempDir dir("steady_bad");
  // Nothing listens on port 9: the flags are refused before any connection.
  RunResult zero = run_servebench({"--port", "9", "--concurrency", "2", "--stage-seconds", "0"}, dir.path);
  EXPECT_EQ(zero.code, 2);
  EXPECT_NE(zero.err.find("--stage-seconds"), std::string::npos) << zero.err;
  // Rate inf and no limit: cycling the prompts until the deadline would never stop sending.
  RunResult unlimited = run_servebench({"--port", "9", "--stage-seconds", "1"}, dir.path);
  EXPECT_EQ(unlimited.code, 2);
  EXPECT_NE(unlimited.err.find("--max-concurrency"), std::string::npos) << unlimited.err;
  RunResult repeats = run_servebench({"--port", "9", "--concurrency", "2", "--repeats", "0"}, dir.path);
  EXPECT_EQ(repeats.code, 2);
  EXPECT_NE(repeats.err.find("--repeats"), std::string::npos) << repeats.err;
}

}  // namespace
}  // namespace sb::e2e
