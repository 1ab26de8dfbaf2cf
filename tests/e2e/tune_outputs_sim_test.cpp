// tune's cross-configuration outputs over real runs: two `servebench sim --cost engine` servers that
// differ only in --max-num-seqs (2, the baseline, and 16), each profiled into a rocprofv3 trace
// (sidecar removed: the run's own clocks place it, as under `tune`) around a 1/4/16 staircase, then
// orchestrate::write_tune_outputs as the tune loop calls it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "e2e/run_process.hpp"
#include "orchestrate/tune_outputs.hpp"
#include "sim/raw_http_client.hpp"

namespace sb::e2e {
namespace {

// One configuration: its server, a profile around the staircase, the sweep.
// Each server in a folder of its own: Sim reads its port from the folder's files.
void run_config(const std::string& max_num_seqs, const fs::path& top) {
  const fs::path dir = top / ("mns" + max_num_seqs);
  fs::create_directories(dir);
  const std::string trace = "kt_" + max_num_seqs + ".csv";
  // --time-scale 2, not 10: each step writes ~160 kernel rows, and under ASan the simulator could
  // not write them within a 0.65 ms step, so both servers were CPU-bound alike and nothing compared.
  Sim sim({"--cost", "engine", "--model-preset", "llama-3-8b", "--gpu-preset", "h100", "--time-scale", "2",
           "--max-num-seqs", max_num_seqs, "--kernel-trace", trace, "--kernel-trace-format", "rocprofv3"},
          dir);
  ASSERT_NE(sim.port(), 0) << slurp(dir / "sim.err");
  const auto port = static_cast<std::uint16_t>(sim.port());
  ASSERT_EQ(sb::sim::http_exchange(port, sb::sim::post_request("/start_profile", "")).status, 200);
  const RunResult r = run_servebench({"--port", sim.port_text(), "--num-prompts", "16", "--random-input-len", "128",
                                      "--random-output-len", "16", "--concurrency", "1", "4", "16", "--output-json",
                                      "sweep.json", "--no-selftest"},
                                     dir, {}, 60);
  ASSERT_EQ(r.code, 0) << r.err;
  ASSERT_EQ(sb::sim::http_exchange(port, sb::sim::post_request("/stop_profile", "")).status, 200);
  fs::remove(dir / (trace + ".servebench.json"));
}

TEST(TuneOutputsSimE2e, MoreSeqsWinsAndKernelRowsAlignPerStage) {
  TempDir dir("tune_outputs_sim");
  ASSERT_NO_FATAL_FAILURE(run_config("2", dir.path));
  ASSERT_NO_FATAL_FAILURE(run_config("16", dir.path));
  orchestrate::TuneOutputsRequest req;
  req.output_dir = dir.path / "tune";
  req.configs = {{"max_num_seqs=2", {{"max_num_seqs", "2"}}, dir.path / "mns2/sweep.json", {dir.path / "mns2/kt_2.csv"}, ""},
                 {"max_num_seqs=16", {{"max_num_seqs", "16"}}, dir.path / "mns16/sweep.json",
                  {dir.path / "mns16/kt_16.csv"}, ""}};
  std::FILE* out = std::tmpfile();
  std::FILE* err = std::tmpfile();
  ASSERT_EQ(orchestrate::write_tune_outputs(req, out, err), ExitCode::ok);
  std::fclose(out);
  std::fclose(err);
  const auto j = nlohmann::json::parse(slurp(req.output_dir / orchestrate::kTuneSummaryJson));
  // At c=16 only two sequences run at once on the baseline: the other 14 queue, so 16 seqs has more
  // output tok/s there and is the best without SLOs.
  EXPECT_EQ(j["best"]["config"], "max_num_seqs=16") << j["best"].dump();
  EXPECT_EQ(j["best"]["load"], 16);
  for (const auto& c : j["configs"]) {
    EXPECT_EQ(c["kernels"]["placed"], 1) << c["name"];  // by environment.clocks_at_start
    ASSERT_TRUE(c["kernels"]["stages"].is_array()) << c["name"];
    for (const auto& s : c["kernels"]["stages"]) EXPECT_FALSE(s["kernels"].empty()) << c["name"] << s.dump();
  }
  const auto& k = j["configs"][1]["vs_baseline_kernels"];
  ASSERT_TRUE(k["per_stage"].get<bool>());
  ASSERT_EQ(k["stages"].size(), 3u);
  // One stream at c=1 on both: the same batch, the same kernels; at c=16 a batch of 16 instead of 2
  // makes kernels longer: attention reads the KV cache of 16 sequences, not 2. (The top kernel, a
  // weight-streaming GEMM, grows only a few % with the batch: the step stays memory-bound.)
  const auto& c1 = k["stages"][0]["kernels"][0];
  EXPECT_LT(std::abs(c1["rel_change"].get<double>()), 0.05) << c1.dump();
  double most_grown = -1;
  for (const auto& kr : k["stages"][2]["kernels"]) most_grown = std::max(most_grown, kr["rel_change"].get<double>());
  EXPECT_GT(most_grown, 0.05) << k["stages"][2].dump();
  EXPECT_EQ(j["pareto"].size(), 6u);
}

}  // namespace
}  // namespace sb::e2e
