// `servebench kernels` as a user runs it: the shared profiler fixtures (skipped where ../shared is
// absent), the project's own samples in tests/data/trace/authored (same formats, hand-computed answers
// in its README), the simulator's traces (aligned through their sidecar offset), the hand-made
// known-answer sweep, and bad input (exit 2, one line).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <nlohmann/json.hpp>

#include "e2e/run_process.hpp"
#include "support/test_paths.hpp"

namespace sb::e2e {
namespace {

struct Result {
  int code = -1;
  std::string out, err;
};

Result kernels(std::vector<std::string> args, const fs::path& dir) {
  args.insert(args.begin(), "kernels");
  Result r;
  r.code = wait_exit(spawn(args, dir, "kernels"), 30);
  r.out = slurp(dir / "kernels.out");
  r.err = slurp(dir / "kernels.err");
  return r;
}

std::string shared(const std::string& rel) { return sb::test_files::shared_fixture(rel); }
std::string data(const std::string& rel) { return sb::test_files::source_path("tests/data/trace/" + rel); }
std::string authored_sample(const std::string& rel) { return data("authored/" + rel); }

// Each (trace, expected top kernel) ranks with a GEMM first.
void expect_top_gemm(const std::vector<std::pair<std::string, std::string>>& cases, const fs::path& dir) {
  for (const auto& [trace, top] : cases) {
    const auto r = kernels({trace, "--format", "json", "--top", "3"}, dir);
    ASSERT_EQ(r.code, 0) << trace << ": " << r.err;
    const auto j = nlohmann::json::parse(r.out);
    ASSERT_EQ(j["kernels"].size(), 3u) << trace;
    EXPECT_EQ(j["kernels"][0]["name"], top) << trace;
    EXPECT_EQ(j["kernels"][0]["category"], "gemm") << trace;
    EXPECT_TRUE(j["alignment"].is_null());
  }
}

TEST(KernelsE2e, FixturesRankTheExpectedTopKernel) {
  SB_REQUIRE_SHARED_FIXTURES();
  TempDir dir("kernels_fixtures");
  expect_top_gemm(
      {{shared("rocprof_v1/vllm_decode_mi300x/results.csv"),
        "Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT32x128x64_MI16x16x1_SN_LDSB1_GRPM1_GSU1_ISA942_K1_WG32_4_2"},
       {shared("rocprofv3/vllm_decode_mi300x"),
        "Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT32x128x64_MI16x16x1_SN_LDSB1_GRPM1_GSU1_ISA942_K1_WG32_4_2"},
       {shared("nsys/vllm_decode_h100_tp2/vllm_cuda_gpu_trace.csv"), "nvjet_tst_64x8_64x16_4x1_v_bz_TNT"},
       {shared("torch_profiler/vllm_h100_tp2_rank0"), "nvjet_tst_64x8_64x16_4x1_v_bz_TNT"}},
      dir.path);
}

TEST(KernelsE2e, ProjectSamplesRankTheExpectedTopKernel) {
  TempDir dir("kernels_samples");
  expect_top_gemm(
      {{authored_sample("rocprof_v1/decode_step/results.csv"), "Cijk_Alik_Bljk_HHS_BH_MT64x32x64_MI16x16x1_SBTEST"},
       {authored_sample("rocprofv3/decode_step"), "Cijk_Alik_Bljk_HHS_BH_MT64x32x64_MI16x16x1_SBTEST"},
       {authored_sample("nsys/decode_step/sbtest_cuda_gpu_trace.csv"), "nvjet_tst_sbtest_64x16_TNT"},
       {authored_sample("torch/decode_step_rank1"), "nvjet_tst_sbtest_64x16_TNT"},
       {authored_sample("torch/decode_step_rank1/rank1.1760000100000.pt.trace.json.gz"), "nvjet_tst_sbtest_64x16_TNT"},
       {data("sim/sim_cuda_gpu_trace.csv"), "nvjet_tst_128x256_64x4_2x1_v_bz_coopA_TNT"},
       {data("sim/sim_results.csv"), "Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT128x128x64_MI16x16x1_SN_ISA942"}},
      dir.path);
}

// Hand-computed in tests/data/trace/authored/README.md: 14 dispatches, 100 000 ns, of which the two
// all-reduces are 26 000 ns; the rocprofv3 run adds 15 000 ns of copies.
TEST(KernelsE2e, OwnSampleTableShowsRankingCategoriesAndDiagnosis) {
  TempDir dir("kernels_own_table");
  const auto r = kernels({authored_sample("rocprof_v1/decode_step/results.csv"), "--top", "2"}, dir.path);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("trace: rocprof_v1 (14 events, CLOCK_BOOTTIME)\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(8 more kernels; --top N shows more)\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\ncommunication       0.026  26.0\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\ngemm                0.045  45.0\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("evidence: communication 26.0% of GPU time over the whole trace (threshold 15%)"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("[host_copies]"), std::string::npos) << r.out;  // the blit kernel is 1 % only

  const auto v3 = kernels({authored_sample("rocprofv3/decode_step"), "--format", "json"}, dir.path);
  ASSERT_EQ(v3.code, 0) << v3.err;
  const auto j = nlohmann::json::parse(v3.out);
  EXPECT_EQ(j["trace"]["format"], "rocprofv3");
  EXPECT_EQ(j["trace"]["events"], 17);
  EXPECT_EQ(j["trace"]["files"].size(), 2u);
  EXPECT_EQ(j["kernels"][0]["calls"], 2);
  EXPECT_DOUBLE_EQ(j["kernels"][0]["total_ms"].get<double>(), 0.028);
  EXPECT_DOUBLE_EQ(j["kernels"][0]["percent"].get<double>(), 28'000 * 100.0 / 115'000);
  ASSERT_EQ(j["findings"].size(), 2u);
  EXPECT_EQ(j["findings"][1]["rule"], "host_copies");  // 1 000 + 15 000 of 115 000 ns = 13.9 %
  EXPECT_EQ(j["findings"][1]["evidence"], "memcpy 13.9% of GPU time over the whole trace (threshold 10%)");
}

TEST(KernelsE2e, TableShowsRankingCategoriesAndDiagnosis) {
  SB_REQUIRE_SHARED_FIXTURES();
  TempDir dir("kernels_table");
  const auto r = kernels({shared("rocprof_v1/vllm_decode_mi300x/results.csv"), "--top", "2"}, dir.path);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("trace: rocprof_v1 (35 events, CLOCK_BOOTTIME)\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(18 more kernels; --top N shows more)\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\ncommunication       0.078  19.7\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("evidence: communication 19.7% of GPU time over the whole trace (threshold 15%)"),
            std::string::npos)
      << r.out;
}

// A one-stage sweep around the simulated trace: only the sidecar's offset can put its events inside.
TEST(KernelsE2e, SimulatedTraceAlignsThroughItsSidecar) {
  TempDir dir("kernels_sim");
  const std::string trace = data("sim/sim_kernel_trace.csv");
  const auto sidecar = nlohmann::json::parse(slurp(trace + ".servebench.json"));
  const std::int64_t first_unix_ns = sidecar["unix_minus_trace_ns"].get<std::int64_t>() + 2750097879549;
  const double start_s = static_cast<double>(first_unix_ns / 1'000'000'000 - 1);
  nlohmann::json sweep = {
      {"load_mode", "concurrency"},
      {"stages",
       {{{"servebench",
          {{"stage_index", 0}, {"load_value", 8}, {"start_unix_s", start_s}, {"end_unix_s", start_s + 10}}}}}}};
  std::ofstream(dir.path / "sweep.json") << sweep.dump();
  const auto r = kernels({trace, "--results", (dir.path / "sweep.json").string(), "--format", "json"}, dir.path);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["alignment"]["stages"].size(), 1u);
  EXPECT_EQ(j["alignment"]["stages"][0]["events"], j["trace"]["events"]);
  EXPECT_EQ(j["alignment"]["outside_events"], 0);
  EXPECT_EQ(j["alignment"]["stages"][0]["load"], "c=8");
  EXPECT_EQ(j["alignment"]["stages"][0]["kernels"][0]["category"], "gemm");
}

TEST(KernelsE2e, KnownAnswerSweepWithTraceStart) {
  TempDir dir("kernels_align");
  // First event at trace 1 ms, placed at Unix 1e9 s + 1 ms: the same offset as the README's 1e18 ns.
  const auto r = kernels(
      {data("align/trace_nsys.csv"), "--results", data("align/sweep.json"), "--trace-start-unix", "1000000000.001"},
      dir.path);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("stage  events  GPU ms  busy %\nc=1         5  15.000    10.4\nc=4         4  40.000    32.8\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("vllm::paged_attention_v1_kernel avg 2.0 ms at c=1 -> 15.0 ms at c=4"), std::string::npos);
  EXPECT_NE(r.out.find("attention-bound at high concurrency (KV reads dominate) [attention_bound]"), std::string::npos);
  EXPECT_NE(r.out.find("evidence: GPU busy 32.8% at c=4 (highest load; threshold 50%)"), std::string::npos);
  // Stages run high to low: the rules still read lowest load first.
  auto sweep = nlohmann::json::parse(slurp(data("align/sweep.json")));
  std::swap(sweep["stages"][0], sweep["stages"][1]);
  std::ofstream(dir.path / "reversed.json") << sweep.dump();
  const auto rev = kernels({data("align/trace_nsys.csv"), "--results", (dir.path / "reversed.json").string(),
                            "--trace-offset-ns", "1000000000000000000"},
                           dir.path);
  ASSERT_EQ(rev.code, 0) << rev.err;
  EXPECT_NE(rev.out.find("evidence: attention 13.3% of GPU time at c=1 -> 75.0% at c=4"), std::string::npos) << rev.out;
}

TEST(KernelsE2e, BadInputIsExit2WithOneLine) {
  TempDir dir("kernels_bad");
  const auto one_line = [](const Result& r) { return std::count(r.err.begin(), r.err.end(), '\n') <= 1; };
  const auto missing = kernels({"/nonexistent/trace.csv"}, dir.path);
  EXPECT_EQ(missing.code, 2);
  EXPECT_TRUE(one_line(missing)) << missing.err;
  EXPECT_NE(missing.err.find("/nonexistent/trace.csv"), std::string::npos) << missing.err;
  const auto not_trace = kernels({authored_sample("README.md")}, dir.path);
  EXPECT_EQ(not_trace.code, 2);
  EXPECT_TRUE(one_line(not_trace)) << not_trace.err;
  // A counter-only rocprof run has no timestamps: refused with the rerun hint, not a crash.
  const auto counters = kernels({authored_sample("rocprof_v1/hip_saxpy/output_saxpy.csv")}, dir.path);
  EXPECT_EQ(counters.code, 2);
  EXPECT_TRUE(one_line(counters)) << counters.err;
  EXPECT_NE(counters.err.find("--timestamp on"), std::string::npos) << counters.err;
  // rocprof/nsys traces carry no Unix offset: alignment is refused, naming the flags that fix it.
  const auto no_offset = kernels({data("align/trace_nsys.csv"), "--results", data("align/sweep.json")}, dir.path);
  EXPECT_EQ(no_offset.code, 2);
  EXPECT_TRUE(one_line(no_offset)) << no_offset.err;
  EXPECT_NE(no_offset.err.find("--trace-offset-ns"), std::string::npos) << no_offset.err;
  const auto bad_sweep = kernels(
      {data("align/trace_nsys.csv"), "--results", data("align/trace_nsys.csv"), "--trace-offset-ns", "0"}, dir.path);
  EXPECT_EQ(bad_sweep.code, 2);
  EXPECT_NE(bad_sweep.err.find("not a JSON object"), std::string::npos) << bad_sweep.err;
  EXPECT_EQ(kernels({data("align/trace_nsys.csv"), "--by", "kernel"}, dir.path).code, 2);
}

TEST(KernelsE2e, SharedReadmeIsNotATrace) {
  SB_REQUIRE_SHARED_FIXTURES();
  TempDir dir("kernels_bad_shared");
  const auto not_trace = kernels({shared("README.md")}, dir.path);
  EXPECT_EQ(not_trace.code, 2);
  EXPECT_LE(std::count(not_trace.err.begin(), not_trace.err.end(), '\n'), 1) << not_trace.err;
}

}  // namespace
}  // namespace sb::e2e
