#include "telemetry/gpu_window.hpp"

#include <gtest/gtest.h>

namespace sb::telemetry {
namespace {

GpuReading reading(int index, double util, std::optional<double> power) {
  GpuReading r;
  r.index = index;
  r.utilization_pct = util;
  r.power_w = power;
  r.memory_used_mib = 1000 * (index + 1);
  r.memory_total_mib = 80000;
  r.memory_used_pct = 100.0 * *r.memory_used_mib / 80000;
  return r;
}

TEST(GpuWindow, MeanAndMaxPerGpu) {
  const std::vector<GpuSnapshot> snaps{{1, {reading(1, 90, 500), reading(0, 10, std::nullopt)}},
                                       {2, {reading(0, 30, 200), reading(1, 70, 300)}}};
  const GpuStageTelemetry t = gpu_window(snaps, GpuTool::nvidia_smi, 2);
  EXPECT_EQ(t.tool, "nvidia-smi");
  EXPECT_EQ(t.failed_samples, 2);
  ASSERT_EQ(t.gpus.size(), 2u);
  EXPECT_EQ(t.gpus[0].index, 0);  // by index, whatever order the tool printed
  EXPECT_EQ(t.gpus[0].samples, 2);
  EXPECT_DOUBLE_EQ(t.gpus[0].utilization_pct->mean, 20);
  EXPECT_DOUBLE_EQ(t.gpus[0].utilization_pct->max, 30);
  EXPECT_EQ(t.gpus[0].power_w->samples, 1);  // the missing reading is left out, not counted as 0
  EXPECT_DOUBLE_EQ(t.gpus[0].power_w->mean, 200);
  EXPECT_DOUBLE_EQ(t.gpus[1].utilization_pct->mean, 80);
  EXPECT_DOUBLE_EQ(t.gpus[1].power_w->max, 500);
  EXPECT_EQ(t.gpus[1].memory_total_mib, 80000.0);
  EXPECT_FALSE(t.gpus[1].sm_clock_mhz.has_value());
  EXPECT_TRUE(gpu_window({}, GpuTool::rocm_smi, 0).gpus.empty());
}

TEST(GpuWindow, IdleCheckNamesBusyGpusAndHeldMemory) {
  GpuReading idle = reading(0, 0, 100);
  idle.memory_used_pct = 0.5;
  GpuReading busy = reading(1, 55, 400);
  busy.memory_used_pct = 1;
  GpuReading held = reading(2, 2, 100);
  held.memory_used_pct = 92;
  const auto problems = gpu_idle_problems({0, {idle, busy, held}});
  ASSERT_EQ(problems.size(), 2u);
  EXPECT_EQ(problems[0].index, 1);
  EXPECT_EQ(problems[0].utilization_pct, 55.0);
  EXPECT_FALSE(problems[0].memory_used_pct.has_value());
  EXPECT_EQ(problems[1].index, 2);
  EXPECT_FALSE(problems[1].utilization_pct.has_value());
  EXPECT_EQ(problems[1].memory_used_pct, 92.0);
  EXPECT_EQ(problems[1].memory_used_mib, 3000.0);
}

}  // namespace
}  // namespace sb::telemetry
