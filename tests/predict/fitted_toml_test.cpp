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

}  // namespace
}  // namespace sb::predict
