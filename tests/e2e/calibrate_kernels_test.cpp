// End to end (issue #15 item 2): `servebench calibrate --kernels` against a real-time `servebench
// sim --cost engine` whose bandwidth_efficiency and step_overhead_us are hidden and perturbed
// (sim --config hidden.toml), profiled into a rocprofv3 kernel trace while `servebench run` plays a
// short staircase. From the sweep alone calibrate cannot tell the two apart (a decode step costs
// weights / bandwidth + overhead, docs/predict.md); with the trace's GPU time per stage it
// recovers both within 5 %. The test asserts that contrast, so it proves the flag matters.
//
// Sizing (the starved-host rule): --time-scale 2, ~1200-token prompts (the sim counts words: no
// tokenizer on either side, calibrate replays the lengths the server counted), 64-token outputs:
// a llama-3-8b decode step on H100 is ~8 ms modelled (~4 ms on the wall clock), a stage lasts
// 0.3-1 s, and what the kernel fit uses is TPOT (a median over whole requests) and busy time over
// whole stages, which a few ms of scheduling noise move by well under 1 %. The sim keeps absolute
// step deadlines, so a late wake-up delays a token's delivery, not the steps after it.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <fstream>
#include <string>
#include <vector>

#include "e2e/run_process.hpp"
#include "sim/raw_http_client.hpp"

namespace sb::e2e {
namespace {

int calk_post(const Sim& sim, const char* path) {
  return sb::sim::http_exchange(static_cast<std::uint16_t>(sim.port()), sb::sim::post_request(path, "")).status;
}

// The value of `key = V` in a fitted TOML; NaN when absent.
double calk_toml_value(const std::string& text, const std::string& key) {
  const auto at = text.find("\n" + key + " = ");
  if (at == std::string::npos) return NAN;
  return std::stod(text.substr(at + key.size() + 4));
}

constexpr double kHiddenBandwidth = 0.68;  // h100 preset 0.85
constexpr double kHiddenOverheadUs = 1150;  // h100 preset 800

TEST(CalibrateKernelsE2e, KernelTimesSeparateBandwidthFromStepOverhead) {
  TempDir dir("calibrate_kernels");
  std::ofstream(dir.path / "hidden.toml") << "[cost]\nbandwidth_efficiency = 0.68\nstep_overhead_us = 1150\n";
  Sim sim({"--model-preset", "llama-3-8b", "--gpu-preset", "h100", "--config", "hidden.toml", "--time-scale", "2",
           "--kernel-trace", "kt.csv", "--kernel-trace-format", "rocprofv3"},
          dir.path);
  ASSERT_NE(sim.port(), 0) << slurp(dir.path / "sim.err");
  ASSERT_EQ(calk_post(sim, "/start_profile"), 200);
  const RunResult measured = run_servebench(
      {"--port", sim.port_text(), "--output-json", "measured.json", "--no-selftest", "--num-prompts", "4",
       "--random-input-len", "1024", "--random-output-len", "64", "--concurrency", "1", "2", "4", "--seed", "3"},
      dir.path, {}, 60);
  ASSERT_EQ(measured.code, 0) << measured.err;
  ASSERT_EQ(calk_post(sim, "/stop_profile"), 200);

  const std::vector<std::string> base = {"calibrate", "measured.json", "--model-preset", "llama-3-8b", "--gpu-preset",
                                         "h100"};
  auto with_args = base;
  with_args.insert(with_args.end(), {"--kernels", "kt.csv", "-o", "with.toml"});
  const RunResult with = run_subcommand(with_args, dir.path, "calibrate_with", {}, 60);
  ASSERT_EQ(with.code, 0) << with.err;
  auto without_args = base;
  without_args.insert(without_args.end(), {"-o", "without.toml"});
  const RunResult without = run_subcommand(without_args, dir.path, "calibrate_without", {}, 60);
  ASSERT_EQ(without.code, 0) << without.err;

  // The console shows the kernel-time fit per stage; the file records the targets.
  EXPECT_NE(with.out.find("GPU/tok"), std::string::npos) << with.out;
  EXPECT_EQ(without.out.find("GPU/tok"), std::string::npos) << without.out;
  const std::string w = slurp(dir.path / "with.toml"), wo = slurp(dir.path / "without.toml");
  EXPECT_NE(w.find("# kernel targets (GPU busy ms per output token, per GPU) from --kernels kt.csv:"), std::string::npos) << w;
  EXPECT_NE(w.find("#   stage 0 (load 1): measured "), std::string::npos) << w;

  const double bw_with = calk_toml_value(w, "bandwidth_efficiency"), oh_with = calk_toml_value(w, "step_overhead_us");
  const double bw_without = calk_toml_value(wo, "bandwidth_efficiency"), oh_without = calk_toml_value(wo, "step_overhead_us");
  RecordProperty("bandwidth_with", std::to_string(bw_with));
  RecordProperty("overhead_with", std::to_string(oh_with));
  RecordProperty("bandwidth_without", std::to_string(bw_without));
  RecordProperty("overhead_without", std::to_string(oh_without));
  EXPECT_NEAR(bw_with / kHiddenBandwidth, 1.0, 0.05) << w << with.out;
  EXPECT_NEAR(oh_with / kHiddenOverheadUs, 1.0, 0.05) << w << with.out;
  // The sweep alone lands anywhere along its valley of equal predictions (10 runs on this 2-core
  // machine: bandwidth 0.59-1.0, overhead 170-3330 µs; once within 5 % of both by chance), with
  // the trace on the hidden values to 0.01 %: the worse of the two errors must be clearly larger
  // without the trace than with it.
  const auto worst = [](double bw, double oh) {
    return std::max(std::abs(bw / kHiddenBandwidth - 1), std::abs(oh / kHiddenOverheadUs - 1));
  };
  const double err_with = worst(bw_with, oh_with), err_without = worst(bw_without, oh_without);
  EXPECT_LT(err_with, 0.01) << w;
  EXPECT_GT(err_without, 0.01) << "without --kernels the sweep alone recovered both: " << bw_without << ", "
                               << oh_without << " µs; the test no longer shows what the flag adds";
  EXPECT_LT(err_with, err_without / 2);
}

// A torch trace (Unix µs from baseTimeNanoseconds) of `devices` kernels of 1 ms each, from `base_ns`.
void calk_write_torch_trace(const fs::path& path, std::optional<std::int64_t> base_ns, int devices) {
  nlohmann::json doc;
  if (base_ns) doc["baseTimeNanoseconds"] = *base_ns;
  doc["traceEvents"] = nlohmann::json::array();
  for (int d = 0; d < devices; ++d)
    doc["traceEvents"].push_back({{"ph", "X"}, {"cat", "kernel"}, {"name", "nvjet_tst_128x256_64x4_2x1_v_bz_coopA_TNT"},
                                  {"ts", 1000}, {"dur", 1000}, {"args", {{"device", d}}}});
  std::ofstream(path) << doc.dump();
}

TEST(CalibrateKernelsE2e, TracesThatCannotServeAreRefusedInOneLine) {
  TempDir dir("calibrate_kernels_refuse");
  Sim sim({"--model-preset", "llama-3-8b", "--gpu-preset", "h100", "--time-scale", "2"}, dir.path);
  ASSERT_NE(sim.port(), 0) << slurp(dir.path / "sim.err");
  const RunResult measured =
      run_servebench({"--port", sim.port_text(), "--output-json", "m.json", "--no-selftest", "--num-prompts", "2",
                      "--random-input-len", "64", "--random-output-len", "8", "--concurrency", "1", "2"},
                     dir.path, {}, 60);
  ASSERT_EQ(measured.code, 0) << measured.err;
  const nlohmann::json sweep = nlohmann::json::parse(slurp(dir.path / "m.json"));
  const double start_s = sweep["stages"][0]["servebench"]["start_unix_s"].get<double>();
  const auto stage_ns = static_cast<std::int64_t>(start_s * 1e6) * 1000;  // µs precision is plenty here

  calk_write_torch_trace(dir.path / "far.json", std::int64_t{1'000'000'000}, 1);  // 1970: in no stage
  calk_write_torch_trace(dir.path / "unplaced.json", std::nullopt, 1);           // relative clock, no offset
  calk_write_torch_trace(dir.path / "two_gpus.json", stage_ns, 2);               // inside stage 0, 2 devices
  const auto expect_refused = [&](const std::string& trace, const std::string& says) {
    const RunResult r = run_subcommand({"calibrate", "m.json", "--model-preset", "llama-3-8b", "--gpu-preset", "h100",
                                        "--kernels", trace, "-o", "f.toml"},
                                       dir.path, "refused", {}, 30);
    EXPECT_EQ(r.code, 2) << trace << ": " << r.err;
    EXPECT_NE(r.err.find(says), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_FALSE(fs::exists(dir.path / "f.toml"));
  };
  expect_refused("far.json", "--kernels far.json: no kernel event falls inside any stage of m.json");
  expect_refused("unplaced.json", "pass --trace-offset-ns N");
  expect_refused("two_gpus.json", "--kernels two_gpus.json: the trace holds 2 devices, the server ran --tensor-parallel-size 1");
}

}  // namespace
}  // namespace sb::e2e
