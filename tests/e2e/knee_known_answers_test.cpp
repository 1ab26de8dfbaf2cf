// Known-answer knees (issue 10 "Done when"): `servebench run` against `servebench sim` configured so
// that the capacity is known in advance, then `servebench report --format json` (and `compare`) read
// back. The knee is taken from the JSON (`knee`, `knee_bracket`, `regions`), never from console words.
//
// Sizing: fixed cost TTFT 20 ms + 7 x 5 ms ITL = 55 ms per request (8 output tokens). 48 prompts per
// stage are whole waves for 8 and 12 slots at c >= 8 (48 = 6 x 8 = 4 x 12), so stage throughput is
// slots / 55 ms without a partial last wave; ~5 s per sweep. The engine sweeps use 64-token prompts
// and 32-token outputs so that decode, not prefill compute, fills the batch and --max-num-seqs is the
// limit (docs/simulator.md §4); 128 prompts per stage, ~7 s per sweep on the shared VM.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "e2e/run_process.hpp"
#include "support/timing_bounds.hpp"

namespace sb::e2e {
namespace {

using Json = nlohmann::json;

// Runs a sweep against a fresh simulator and returns the first run of `report --format json`.
Json knee_sweep_report(const TempDir& dir, const std::string& name, const std::vector<std::string>& sim_args,
                       std::vector<std::string> run_args) {
  fs::create_directories(dir.path / name);  // the simulator's own folder (sim.out, sim.err)
  Sim sim(sim_args, dir.path / name);
  EXPECT_NE(sim.port(), 0) << slurp(dir.path / name / "sim.err");
  std::vector<std::string> args = {"--port", sim.port_text(), "--output-json", name + ".json",
                                   "--no-preflight-request"};
  args.insert(args.end(), run_args.begin(), run_args.end());
  const RunResult r = run_servebench(args, dir.path, {}, 120);
  EXPECT_EQ(r.code, 0) << r.err;
  const RunResult rep = run_subcommand({"report", name + ".json", "--format", "json"}, dir.path, "report_" + name);
  EXPECT_EQ(rep.code, 0) << rep.err;
  return Json::parse(rep.out)["runs"][0];
}

const std::vector<std::string> kFixedWorkload = {"--num-prompts", "48", "--random-input-len", "16",
                                                 "--random-output-len", "8"};

std::vector<std::string> with(std::vector<std::string> base, const std::vector<std::string>& more) {
  base.insert(base.end(), more.begin(), more.end());
  return base;
}

TEST(KneeKnownAnswers, FixedCostEightSlotsKneeAtEight) {
  const TempDir dir("knee_fixed8");
  const Json a = knee_sweep_report(dir, "a", {"--ttft-ms", "20", "--itl-ms", "5", "--max-concurrency", "8"},
                                   with(kFixedWorkload, {"--concurrency", "1", "2", "4", "8", "16", "32"}));
  ASSERT_TRUE(a["knee"].is_object()) << a.dump(2);
  EXPECT_EQ(a["regions"].size(), 6u);
  SB_TIMING_CHECKS_FOLLOW();  // which stage is the knee is a timing
  EXPECT_EQ(a["knee"]["max_concurrency"], 8) << a["knee_reason"];
  EXPECT_EQ(a["knee_bracket"]["reason_code"], "at_stage") << a["knee_reason"];
  EXPECT_EQ(a["knee_bracket"]["lo"], 8.0);
  EXPECT_EQ(a["knee_bracket"]["hi"], 8.0);
  // Past the slots requests wait: saturated with growing latency, never a "best zone".
  for (int i : {4, 5}) {
    EXPECT_EQ(a["regions"][i]["region"], "saturated") << a["regions"][i].dump();
    EXPECT_EQ(a["regions"][i]["reason_code"], "queueing") << a["regions"][i].dump();
  }
}

TEST(KneeKnownAnswers, FixedCostTwelveSlotsBracketEightToSixteen) {
  const TempDir dir("knee_fixed12");
  const Json a = knee_sweep_report(dir, "a", {"--ttft-ms", "20", "--itl-ms", "5", "--max-concurrency", "12"},
                                   with(kFixedWorkload, {"--concurrency", "1", "2", "4", "8", "16", "32"}));
  ASSERT_TRUE(a["knee_bracket"].is_object()) << a.dump(2);
  EXPECT_EQ(a["regions"].size(), 6u);
  SB_TIMING_CHECKS_FOLLOW();
  EXPECT_EQ(a["knee_bracket"]["reason_code"], "inside_segment") << a["knee_reason"];
  EXPECT_EQ(a["knee_bracket"]["lo"], 8.0);
  EXPECT_EQ(a["knee_bracket"]["hi"], 16.0);
  EXPECT_NEAR(a["knee_bracket"]["estimate"].get<double>(), 12, 1.2) << a["knee_reason"];  // 10 %
  EXPECT_EQ(a["regions"][4]["reason_code"], "knee_zone");
}

TEST(KneeKnownAnswers, RateSweepKneeWithinOneStepOfTheCapacity) {
  // 8 slots of 55 ms: capacity 8 / 0.055 = 145 req/s.
  const double capacity = 8 / 0.055;
  const TempDir dir("knee_rate");
  const Json a = knee_sweep_report(
      dir, "a", {"--ttft-ms", "20", "--itl-ms", "5", "--max-concurrency", "8"},
      {"--num-prompts", "64", "--random-input-len", "16", "--random-output-len", "8", "--request-rate", "25", "50",
       "100", "200", "400", "--seed", "1"});
  ASSERT_TRUE(a["knee_bracket"].is_object()) << a.dump(2);
  EXPECT_EQ(a["regions"].size(), 5u);
  SB_TIMING_CHECKS_FOLLOW();
  const Json& b = a["knee_bracket"];
  // The tested rates double, so "within one step": the bracket holds the capacity, or the knee stage
  // is the nearest rate on either side of it.
  const double lo = b["lo"].get<double>(), hi = b["hi"].get<double>();
  EXPECT_LE(lo, capacity) << a["knee_reason"];
  EXPECT_GE(2 * hi, capacity) << a["knee_reason"];
  EXPECT_LE(hi, 2 * capacity) << a["knee_reason"];
  EXPECT_EQ(b["estimate_method"], "plateau_rate");
  EXPECT_GT(b["estimate"].get<double>(), capacity / 2) << a["knee_reason"];
  EXPECT_LE(b["estimate"].get<double>(), 1.05 * capacity) << a["knee_reason"];
  EXPECT_EQ(a["regions"][4]["region"], "saturated") << a["regions"][4].dump();  // rate 400
}

TEST(KneeKnownAnswers, EngineMaxNumSeqsSixteenVersusSixtyFour) {
  const TempDir dir("knee_engine");
  const std::vector<std::string> engine = {"--cost", "engine", "--model-preset", "llama-3-8b", "--gpu-preset", "h100",
                                           "--time-scale", "5", "--max-num-seqs"};
  const std::vector<std::string> workload = {"--num-prompts", "128", "--random-input-len", "64",
                                             "--random-output-len", "32", "--concurrency", "1", "2", "4", "8",
                                             "16", "32", "64", "128", "256"};
  const Json s16 = knee_sweep_report(dir, "a", with(engine, {"16"}), workload);
  const Json s64 = knee_sweep_report(dir, "b", with(engine, {"64"}), workload);
  for (const auto* r : {&s16, &s64}) {
    ASSERT_TRUE((*r)["knee_bracket"].is_object()) << r->dump(2);
  }
  // compare reads both sweeps (its knee_shift is checked below, with the other timings).
  const RunResult cmp = run_subcommand({"compare", "a.json", "b.json", "--format", "json"}, dir.path, "compare");
  ASSERT_EQ(cmp.code, 0) << cmp.err;
  const Json c = Json::parse(cmp.out);
  ASSERT_TRUE(c["knee_shift"].is_object()) << c.dump();
  for (const auto* r : {&s16, &s64}) EXPECT_EQ((*r)["regions"][8]["max_concurrency"], 256);
  SB_TIMING_CHECKS_FOLLOW();
  auto holds = [](const Json& a, double n) {
    return a["knee_bracket"]["lo"].get<double>() <= n && n <= a["knee_bracket"]["hi"].get<double>();
  };
  EXPECT_TRUE(holds(s16, 16)) << s16["knee_reason"];
  EXPECT_TRUE(holds(s64, 64)) << s64["knee_reason"];
  EXPECT_EQ(s16["knee"]["max_concurrency"], 16) << s16["knee_reason"];
  EXPECT_EQ(s64["knee"]["max_concurrency"], 64) << s64["knee_reason"];
  // c = 256 far past both limits: throughput flat, TTFT many times the knee's: queueing.
  for (const auto* r : {&s16, &s64}) {
    const Json& last = (*r)["regions"][8];
    EXPECT_EQ(last["region"], "saturated") << last.dump();
    EXPECT_EQ(last["reason_code"], "queueing") << last.dump();
  }
  // compare names the shift in its JSON.
  EXPECT_EQ(c["knee_shift"]["baseline"], 16) << c["knee_shift"].dump();
  EXPECT_EQ(c["knee_shift"]["tuned"], 64) << c["knee_shift"].dump();
}

}  // namespace
}  // namespace sb::e2e
