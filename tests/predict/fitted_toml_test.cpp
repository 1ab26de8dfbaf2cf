#include "predict/fitted_toml.hpp"

#include <gtest/gtest.h>

#include <toml++/toml.h>

namespace sb::predict {
namespace {

TEST(FittedToml, ReadsBackAsTheFittedNumbers) {
  CalibrateResult r;
  r.fitted.hardware.cost.compute_efficiency = 0.3812345678901;
  r.fitted.hardware.cost.step_overhead_us = 1049.5;
  r.fitted.scheduler.max_num_seqs = 64;
  r.fitted.hardware.tensor_parallel = 2;
  r.params = {{"compute_efficiency", 0.5, 0.3812345678901, false}};
  const std::string text = fitted_toml({"llama-3-8b", "h100", "dir/\"odd\".json", &r, {}});
  const toml::table t = toml::parse(text);
  EXPECT_EQ(t["engine"]["model_preset"].value<std::string>(), "llama-3-8b");
  EXPECT_EQ(t["engine"]["gpu_preset"].value<std::string>(), "h100");
  EXPECT_EQ(t["engine"]["max_num_seqs"].value<int>(), 64);
  EXPECT_EQ(t["engine"]["tensor_parallel_size"].value<int>(), 2);
  EXPECT_EQ(t["cost"]["compute_efficiency"].value<double>(), 0.3812345678901);  // exact round trip
  EXPECT_EQ(t["cost"]["step_overhead_us"].value<double>(), 1049.5);
  EXPECT_NE(text.find("compute_efficiency = 0.3812345678901  # fitted (start 0.5)"), std::string::npos);
  EXPECT_FALSE(t["engine"]["time_scale"]);  // the fitted server runs at real speed
}

// The whole text, byte for byte: files calibrate wrote before stay what it writes now.
TEST(FittedToml, TheWholeFile) {
  CalibrateResult r;
  r.objective = 0.01234;
  r.evaluations = 321;
  r.fitted.hardware.tensor_parallel = 2;
  r.fitted.scheduler.max_num_seqs = 64;
  r.fitted.scheduler.chunked_prefill = false;
  r.fitted.gpu_memory_utilization = 0.85;
  r.fitted.num_gpu_blocks_override = 5000;
  r.fitted.hardware.cost.compute_efficiency = 0.3812345678901;
  r.fitted.hardware.cost.allreduce_latency_us = 9.75;
  r.params = {{"compute_efficiency", 0.5, 0.3812345678901, false}, {"allreduce_latency_us", 12, 9.75, false}};
  StageFit stage;
  stage.stage_index = 1;
  stage.load_value = 8;
  stage.held_out = true;
  stage.measured.gpu_ms_per_token = 1.25;
  stage.predicted.gpu_ms_per_token = 1.3;
  r.stages = {stage};
  EXPECT_EQ(fitted_toml({"llama-3-70b", "h200", "run.json", &r, {"a.csv", "b.csv"}}),
            "# servebench calibrate: cost parameters fitted to run.json\n"
            "# objective 0.0123 after 321 replays (docs/predict.md)\n"
            "# kernel targets (GPU busy ms per output token, per GPU) from --kernels a.csv b.csv:\n"
            "#   stage 1 (load 8, held out): measured 1.25, fitted 1.3\n"
            "\n[engine]\n"
            "model_preset = \"llama-3-70b\"\n"
            "gpu_preset = \"h200\"\n"
            "tensor_parallel_size = 2\n"
            "max_num_seqs = 64\n"
            "max_num_batched_tokens = 8192\n"
            "enable_chunked_prefill = false\n"
            "block_size = 16\n"
            "gpu_memory_utilization = 0.85\n"
            "num_gpu_blocks_override = 5000\n"
            "\n[cost]\n"
            "compute_efficiency = 0.3812345678901  # fitted (start 0.5)\n"
            "bandwidth_efficiency = 0.8\n"
            "step_overhead_us = 800\n"
            "allreduce_latency_us = 9.75  # fitted (start 12)\n"
            "link_efficiency = 0.7\n");
}

}  // namespace
}  // namespace sb::predict
