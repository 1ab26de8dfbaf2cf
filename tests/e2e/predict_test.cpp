// End to end (issue #15 "Done when"): `servebench predict` agrees with a real-time `servebench sim
// --cost engine` run of the same staircase, and `servebench calibrate` on a real run against a sim
// with perturbed cost parameters (--engine-config) finds parameters that predict its held-out stage.
//
// Sizing and the time-scale trap: at --time-scale K the sim's steps are K times shorter, but its
// host costs (HTTP, tokenising the prompt, the client's own) are not, so at K = 10 they add ~10 %
// to a TTFT. The agreement test runs the sim in real time (K = 1, as the criterion says):
// on a Firecracker VM those host costs were ~2 ms of wall time a request, which K = 2 doubled into
// a TTFT 12-14 % above predict's (33.1 vs 29.1 ms). A llama-3-8b prefill of 512 tokens on H100 is
// ~22 ms, a decode step ~7.5 ms. Exact prompt
// lengths need the same tokenizer on both sides (the sim's word count otherwise differs by ~15 %).
// Rates, not concurrencies, for the agreement test: a closed loop's first wave reaches the server
// spread over the client's send times (predict sends it at once), which moves TTFT by a step.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include "e2e/run_process.hpp"
#include "support/test_paths.hpp"
#include "support/timing_bounds.hpp"

namespace sb::e2e {
namespace {

using nlohmann::json;

json predict_read_json(const fs::path& p) {
  std::ifstream in(p);
  return json::parse(in);
}

double predict_rel(double predicted, double measured) { return predicted / measured - 1.0; }

const std::string& predict_tokenizer() {
  static const std::string dir = sb::test_files::tokenizer_dir("llama3");
  return dir;
}

TEST(PredictE2e, AgreesWithARealTimeSimRunOfTheSameStaircase) {
  if (!sb::test_files::have_tokenizer("llama3")) GTEST_SKIP() << sb::test_files::missing_tokenizer_message("llama3");
  TempDir dir("predict_agree");
  const std::vector<std::string> engine = {"--model-preset", "llama-3-8b", "--gpu-preset", "h100"};
  // The sim advertises its time scale and the run reports modelled times (docs/run.md "Simulated
  // time"): predict models the same GPU at its own speed.
  std::vector<std::string> sim_args = {"--cost", "engine", "--tokenizer", predict_tokenizer(), "--time-scale", "1"};
  sim_args.insert(sim_args.end(), engine.begin(), engine.end());
  Sim sim(sim_args, dir.path);
  ASSERT_NE(sim.port(), 0) << slurp(dir.path / "sim.err");
  const std::vector<std::string> workload = {"--num-prompts", "48", "--random-input-len", "512", "--random-output-len",
                                             "32", "--request-rate", "30", "120", "--seed", "7", "--tokenizer",
                                             predict_tokenizer()};
  std::vector<std::string> run_args = {"--port", sim.port_text(), "--output-json", "measured.json", "--no-selftest"};
  run_args.insert(run_args.end(), workload.begin(), workload.end());
  const RunResult measured = run_servebench(run_args, dir.path, {}, 60);
  ASSERT_EQ(measured.code, 0) << measured.err;
  std::vector<std::string> predict_args = {"predict", "--output-json", "predicted.json"};
  predict_args.insert(predict_args.end(), engine.begin(), engine.end());
  predict_args.insert(predict_args.end(), workload.begin(), workload.end());
  const RunResult predicted = run_subcommand(predict_args, dir.path, "predict");
  ASSERT_EQ(predicted.code, 0) << predicted.err;
  EXPECT_NE(predicted.out.find("Serving Benchmark Result"), std::string::npos) << predicted.out;
  EXPECT_NE(predicted.out.find("knee:"), std::string::npos) << predicted.out;

  {
    const json m = predict_read_json(dir.path / "measured.json");
    const json p = predict_read_json(dir.path / "predicted.json");
    EXPECT_EQ(p["predicted"], true);
    EXPECT_EQ(p["prediction"]["gpu_preset"], "h100");
    EXPECT_FALSE(m.contains("predicted"));
    ASSERT_EQ(m["stages"].size(), 2u);
    ASSERT_EQ(p["stages"].size(), 2u);
    for (std::size_t i = 0; i < 2; ++i) {
      SCOPED_TRACE("stage " + std::to_string(i));
      // The same prompts, counted alike.
      EXPECT_EQ(m["stages"][i]["total_input_tokens"], p["stages"][i]["total_input_tokens"]);
      EXPECT_EQ(m["stages"][i]["total_output_tokens"], p["stages"][i]["total_output_tokens"]);
    }
  }
  SB_TIMING_CHECKS_FOLLOW();  // a real-time measurement held to a prediction

  // 48 requests a stage, not 24: the sim's host time moves a prefill into another step now and then,
  // and with 24 that moved a stage's TPOT median 4 % (10.53 vs 10.98 ms at 120 req/s), twice in a row.
  // A real-time run on a loaded 2-core machine sometimes stalls or shifts its step grid far enough
  // to move a 48-request median past its bound: such a run is measured once more against the same
  // sim (no prefix cache, the same seed), and the second one is checked. A real disagreement shows
  // in both.
  const std::vector<std::pair<const char*, double>> bounds = {
      {"output_throughput", 0.03}, {"median_e2el_ms", 0.03}, {"median_tpot_ms", 0.03}, {"median_ttft_ms", 0.15}};
  const auto any_off = [&] {
    const json mm = predict_read_json(dir.path / "measured.json"), pp = predict_read_json(dir.path / "predicted.json");
    for (std::size_t i = 0; i < mm["stages"].size() && i < pp["stages"].size(); ++i)
      for (const auto& [key, tolerance] : bounds)
        if (std::abs(predict_rel(pp["stages"][i][key].get<double>(), mm["stages"][i][key].get<double>())) > tolerance)
          return true;
    return false;
  };
  if (any_off()) {
    ASSERT_EQ(run_servebench(run_args, dir.path, {}, 60).code, 0);
  }
  const json m = predict_read_json(dir.path / "measured.json");
  const json p = predict_read_json(dir.path / "predicted.json");
  for (std::size_t i = 0; i < 2; ++i) {
    const json& ms = m["stages"][i];
    const json& ps = p["stages"][i];
    SCOPED_TRACE("stage " + std::to_string(i));
    // Medians: a loaded test machine stalls the real-time sim now and then (one request of a
    // stage 100 ms late), which a mean would carry and a median does not.
    const auto expect_near = [&](const char* key, double tolerance) {
      EXPECT_NEAR(predict_rel(ps[key].get<double>(), ms[key].get<double>()), 0, tolerance)
          << key << ": predicted " << ps[key] << ", measured " << ms[key];
    };
    // TTFT's 15 %: the sim's host time (HTTP, tokenising 512 tokens: 1-2 ms, up to 3 ms on a
    // Firecracker VM) is in every measured TTFT and in no predicted one, and it shifts the sim's step
    // grid against predict's, so a request arriving mid-step may join a step earlier or later there:
    // ±half a step (3.8 ms of a ~24 ms TTFT) per request. Seen on such a VM: 27.4 vs 24.0 ms, twice
    // in a row, in 1 of 12 runs; the other eleven within 10 %.
    for (const auto& [key, tolerance] : bounds) expect_near(key, tolerance);
  }
}

TEST(PredictE2e, CalibrateFitsAPerturbedSimAndPredictsItsHeldOutStage) {
  if (!sb::test_files::have_tokenizer("llama3")) GTEST_SKIP() << sb::test_files::missing_tokenizer_message("llama3");
  TempDir dir("calibrate_fit");
  // The "real server": the preset's costs perturbed by -24 %, -18 % and -30 %.
  std::ofstream(dir.path / "hidden.toml") << "[cost]\ncompute_efficiency = 0.38\nbandwidth_efficiency = 0.66\n"
                                             "step_overhead_us = 1050\n";
  Sim sim({"--model-preset", "llama-3-8b", "--gpu-preset", "h100", "--engine-config", "hidden.toml", "--time-scale",
           "2", "--tokenizer", predict_tokenizer()},
          dir.path);
  ASSERT_NE(sim.port(), 0) << slurp(dir.path / "sim.err");
  const RunResult measured = run_servebench(
      {"--port", sim.port_text(), "--output-json", "measured.json", "--no-selftest", "--num-prompts", "8",
       "--random-input-len", "1024", "--random-output-len", "32", "--concurrency", "1", "4", "16", "--seed", "5",
       "--tokenizer", predict_tokenizer()},
      dir.path, {}, 60);
  ASSERT_EQ(measured.code, 0) << measured.err;
  // The sim ran at --time-scale 2 and said so: the sweep is in the modelled GPU's time already.
  const RunResult fit = run_subcommand({"calibrate", "measured.json", "--model-preset", "llama-3-8b", "--gpu-preset",
                                        "h100", "-o", "fitted.toml"},
                                       dir.path, "calibrate");
  ASSERT_EQ(fit.code, 0) << fit.err;
  EXPECT_NE(fit.out.find("held out"), std::string::npos) << fit.out;
  EXPECT_NE(fit.err.find("wrote fitted.toml"), std::string::npos) << fit.err;
  {  // sim --config serves the file calibrate wrote.
    TempDir served("calibrate_serve");
    fs::copy_file(dir.path / "fitted.toml", served.path / "fitted.toml");
    Sim fitted_sim({"--config", "fitted.toml"}, served.path);
    EXPECT_NE(fitted_sim.port(), 0) << slurp(served.path / "sim.err");
  }
  SB_TIMING_CHECKS_FOLLOW();  // the fit is to a real-time measurement

  // The fitted file drives predict: its c=16 stage (held out of the fit) is within the issue's
  // bounds of the measured one, where the uncalibrated presets are not.
  const auto predict_c16 = [&](const std::vector<std::string>& engine, const std::string& out) {
    std::vector<std::string> args = {"predict", "--output-json", out, "--num-prompts", "8",
                                     "--random-input-len", "1024", "--random-output-len", "32", "--concurrency", "1",
                                     "4", "16", "--seed", "5", "--tokenizer", predict_tokenizer()};
    args.insert(args.end(), engine.begin(), engine.end());
    const RunResult r = run_subcommand(args, dir.path, out);
    EXPECT_EQ(r.code, 0) << r.err;
    return predict_read_json(dir.path / out)["stages"][2];
  };
  const json m = predict_read_json(dir.path / "measured.json")["stages"][2];
  const json calibrated = predict_c16({"--engine-config", "fitted.toml"}, "calibrated.json");
  const json presets = predict_c16({"--model-preset", "llama-3-8b", "--gpu-preset", "h100"}, "presets.json");
  const double tps = m["output_throughput"], ttft = m["median_ttft_ms"];
  EXPECT_NEAR(predict_rel(calibrated["output_throughput"], tps), 0, 0.05) << calibrated["output_throughput"] << " vs " << tps;
  EXPECT_NEAR(predict_rel(calibrated["median_ttft_ms"], ttft), 0, 0.10) << calibrated["median_ttft_ms"] << " vs " << ttft;
  EXPECT_GT(std::abs(predict_rel(presets["median_ttft_ms"], ttft)), 0.15) << "the perturbation must matter";

  // The compute efficiency shows in every prefill and is recovered.
  std::ifstream toml(dir.path / "fitted.toml");
  const std::string text((std::istreambuf_iterator<char>(toml)), std::istreambuf_iterator<char>());
  const auto at = text.find("compute_efficiency = ");
  ASSERT_NE(at, std::string::npos) << text;
  EXPECT_NEAR(std::stod(text.substr(at + 21)) / 0.38, 1.0, 0.10) << text;
}

}  // namespace
}  // namespace sb::e2e

namespace sb::e2e {
namespace {

TEST(PredictE2e, RefusalsAreOneLineWithExit2) {
  TempDir dir("predict_refuse");
  const auto expect_refused = [&](const std::vector<std::string>& args, const std::string& says) {
    const RunResult r = run_subcommand(args, dir.path, "refused");
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_NE(r.err.find(says), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  };
  expect_refused({"predict", "--concurrency", "auto"}, "--concurrency/--request-rate auto: ");
  expect_refused({"predict", "--concurrency", "1", "--repeats", "2"}, "--repeats: ");
  expect_refused({"predict", "--concurrency", "1", "--grid", "max_num_seqs=0"}, "--grid max_num_seqs=0: '0' is not a positive integer");
  expect_refused({"predict", "--concurrency", "1", "--grid", "max_num_seqs=4", "--output-json", "x.json"}, "--grid: writes no result files");
  expect_refused({"predict", "--concurrency", "1", "--no-such-flag"}, "'--no-such-flag': unknown flag");
  std::ofstream(dir.path / "s.json") << "{}";
  expect_refused({"calibrate", "s.json", "-o", "f.toml"}, "--model-preset and --gpu-preset are required");
  EXPECT_FALSE(fs::exists(dir.path / "f.toml"));
  EXPECT_FALSE(fs::exists(dir.path / "x.json"));
}

}  // namespace
}  // namespace sb::e2e
