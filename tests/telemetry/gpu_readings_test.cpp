#include "telemetry/gpu_readings.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "core/error.hpp"
#include "support/test_paths.hpp"

namespace sb::telemetry {
namespace {

std::string gpu_sample(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in) << "cannot open " << path;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string own(const std::string& name) {
  return gpu_sample(sb::test_files::source_path("tests/data/telemetry/" + name));
}

TEST(GpuReadings, NvidiaSmiQueryCsv) {
  const auto r = parse_nvidia_smi(own("nvidia-smi.csv"));
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].index, 0);
  EXPECT_EQ(r[0].name, "NVIDIA H200");
  EXPECT_EQ(r[0].utilization_pct, 3.0);
  EXPECT_EQ(r[0].memory_used_mib, 1024.0);
  EXPECT_EQ(r[0].memory_total_mib, 143771.0);
  EXPECT_EQ(r[0].power_w, 118.5);
  EXPECT_EQ(r[0].sm_clock_mhz, 1980.0);
  EXPECT_EQ(r[0].memory_clock_mhz, 3201.0);
  ASSERT_TRUE(r[0].memory_used_pct.has_value());
  EXPECT_DOUBLE_EQ(*r[0].memory_used_pct, 100.0 * 1024 / 143771);
  EXPECT_EQ(r[1].index, 1);
  EXPECT_EQ(r[1].utilization_pct, 55.0);
  EXPECT_FALSE(r[1].power_w.has_value());  // [N/A]
}

TEST(GpuReadings, NvidiaSmiBadLinesNameTheLine) {
  try {
    parse_nvidia_smi("0, H200, 3, 1024, 143771, 118.5, 1980, 3201\n0, H200, 3\n");
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(), "nvidia-smi output: line 2: 3 fields, expected 8");
  }
  EXPECT_THROW(parse_nvidia_smi("x, H200, 3, 1024, 143771, 118.5, 1980, 3201\n"), UserError);
  // Not a GPU index (fuzzing: 4e21 must not be cast to int).
  EXPECT_THROW(parse_nvidia_smi("4e21, H200, 3, 1024, 143771, 118.5, 1980, 3201\n"), UserError);
  EXPECT_THROW(parse_nvidia_smi("-1, H200, 3, 1024, 143771, 118.5, 1980, 3201\n"), UserError);
  EXPECT_THROW(parse_nvidia_smi("0.5, H200, 3, 1024, 143771, 118.5, 1980, 3201\n"), UserError);
  EXPECT_TRUE(parse_nvidia_smi("\n").empty());
}

TEST(GpuReadings, RocmSmiJsonAfterWarnings) {
  const auto r = parse_rocm_smi(own("rocm-smi.json"));
  ASSERT_EQ(r.size(), 2u);  // "system" is no card
  EXPECT_EQ(r[0].index, 0);
  EXPECT_EQ(r[0].utilization_pct, 2.0);
  EXPECT_EQ(r[0].power_w, 140.0);
  EXPECT_EQ(r[0].sm_clock_mhz, 1700.0);
  EXPECT_EQ(r[0].memory_clock_mhz, 1300.0);
  EXPECT_EQ(r[0].memory_used_mib, 2048.0);
  EXPECT_EQ(r[0].memory_used_pct, 1.0);  // the tool's own VRAM%, kept over the derived one
  EXPECT_EQ(r[1].power_w, 612.0);        // MI300's "Current Socket" key
  EXPECT_EQ(r[1].memory_used_pct, 92.0);
  EXPECT_THROW(parse_rocm_smi("no json here"), UserError);
  EXPECT_THROW(parse_rocm_smi("{\"system\": {}}"), UserError);
  EXPECT_THROW(parse_rocm_smi("{\"card99999999999\": {\"GPU use (%)\": \"1\"}}"), UserError);  // no card left
}

TEST(GpuReadings, AmdSmiBothShapes) {
  const auto r = parse_amd_smi(own("amd-smi.json"));
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].utilization_pct, 87.0);
  EXPECT_EQ(r[0].power_w, 612.0);
  EXPECT_EQ(r[0].sm_clock_mhz, 2100.0);
  EXPECT_EQ(r[0].memory_used_mib, 180512.0);
  EXPECT_EQ(r[0].memory_total_mib, 196592.0);
  EXPECT_FALSE(r[1].utilization_pct.has_value());  // "N/A"
  EXPECT_EQ(r[1].index, 1);
  const auto list = parse_amd_smi("[{\"gpu\": 3, \"usage\": {\"gfx_activity\": 50}}]");
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0].index, 3);
  EXPECT_EQ(list[0].utilization_pct, 50.0);
  EXPECT_THROW(parse_amd_smi("{\"other\": 1}"), UserError);
}

TEST(GpuReadings, SharedFixtures) {
  SB_REQUIRE_SHARED_FIXTURES();
  const auto rocm =
      parse_rocm_smi(gpu_sample(sb::test_files::shared_fixture("gpu_telemetry/rocm-smi_showuse_showmemuse.json")));
  ASSERT_EQ(rocm.size(), 2u);
  EXPECT_EQ(rocm[0].utilization_pct, 87.0);
  EXPECT_EQ(rocm[1].memory_used_pct, 92.0);
  const auto legacy = parse_rocm_smi(
      gpu_sample(sb::test_files::shared_fixture("gpu_telemetry/rocm-smi_legacy_showuse_showmemuse.json")));
  ASSERT_EQ(legacy.size(), 2u);
  EXPECT_EQ(legacy[1].utilization_pct, 85.0);
  for (const char* f : {"gpu_telemetry/amd-smi_metric.json", "gpu_telemetry/amd-smi_metric_legacy_list.json"}) {
    const auto amd = parse_amd_smi(gpu_sample(sb::test_files::shared_fixture(f)));
    ASSERT_FALSE(amd.empty()) << f;
    EXPECT_EQ(amd[0].utilization_pct, 87.0) << f;
    EXPECT_EQ(amd[0].power_w, 612.0) << f;
    EXPECT_EQ(amd[0].memory_used_mib, 180512.0) << f;
  }
}

TEST(GpuReadings, CommandsAreTheDocumentedOnes) {
  EXPECT_EQ(gpu_tool_command(GpuTool::amd_smi), (std::vector<std::string>{"amd-smi", "metric", "--json"}));
  EXPECT_EQ(gpu_tool_command(GpuTool::nvidia_smi).at(0), "nvidia-smi");
  EXPECT_EQ(gpu_tool_command(GpuTool::nvidia_smi).at(2), "--format=csv,noheader,nounits");
  EXPECT_TRUE(gpu_tool_command(GpuTool::off).empty());
  EXPECT_EQ(gpu_tool_name(GpuTool::rocm_smi), "rocm-smi");
}

}  // namespace
}  // namespace sb::telemetry
