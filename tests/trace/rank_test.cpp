// Known answers: every AUTHORED stats file in the shared fixtures, and every stats file of the
// project's own samples (tests/data/trace/authored), was computed from the trace next to it with the
// tool's own aggregation, so rank_kernels() must reproduce it row by row, printed the tool's way.
#include "trace/rank.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "fixtures.hpp"
#include "trace/kernel_stats.hpp"
#include "trace/nsys.hpp"
#include "trace/rocprof_v1.hpp"
#include "trace/rocprofv3.hpp"
#include "trace/torch_trace.hpp"

namespace sb::trace {
namespace {

using trace_fixtures::fixture_text;

std::string rank_in(std::string_view dir, std::string_view file) {
  return fixture_text(std::string(dir) + std::string(file));
}

// rocprofv3 csv.hpp: > 0.01 -> fixed 6 decimals, else %.8e; percentages >= 1: 2 decimals, > 0.01: 4, else %.3e.
std::string v3_float(double v) { return v > 0.01 ? fmt::format("{:.6f}", v) : fmt::format("{:.8e}", v); }
std::string v3_percent(double v) {
  if (v >= 1) return fmt::format("{:.2f}", v);
  return v > 0.01 ? fmt::format("{:.4f}", v) : fmt::format("{:.3e}", v);
}

TEST(RankKernels, ReproducesRocprofV1ResultsStatsExactly) {
  SB_REQUIRE_SHARED_FIXTURES();
  const auto ranks = rank_kernels(parse_rocprof_v1_csv(rank_in(trace_fixtures::kV1Dir, "results.csv"), "results.csv"));
  const KernelStats stats = parse_kernel_stats(rank_in(trace_fixtures::kV1Dir, "results.stats.csv"), "results.stats.csv");
  ASSERT_EQ(ranks.size(), stats.rows.size());
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    const KernelStatsRow& want = stats.rows[i];
    EXPECT_EQ(ranks[i].name, want.name) << "row " << i;
    EXPECT_EQ(ranks[i].calls, want.calls) << want.name;
    EXPECT_EQ(ranks[i].total_ns, want.total_ns) << want.name;
    EXPECT_EQ(ranks[i].total_ns / ranks[i].calls, want.avg_ns) << want.name;  // SQLite integer division
    EXPECT_EQ(ranks[i].percent, want.percent) << want.name;  // same double, bit for bit
  }
}

TEST(RankKernels, ReproducesRocprofv3KernelAndCopyStatsExactly) {
  SB_REQUIRE_SHARED_FIXTURES();
  const auto ranks =
      rank_kernels(parse_rocprofv3_kernel_trace(rank_in(trace_fixtures::kV3Dir, "48213_kernel_trace.csv"), "k"));
  const KernelStats stats = parse_kernel_stats(rank_in(trace_fixtures::kV3Dir, "48213_kernel_stats.csv"), "s");
  ASSERT_EQ(ranks.size(), stats.rows.size());
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    const KernelStatsRow& want = stats.rows[i];
    EXPECT_EQ(ranks[i].name, want.name) << "row " << i;
    EXPECT_EQ(ranks[i].calls, want.calls) << want.name;
    EXPECT_EQ(ranks[i].total_ns, want.total_ns) << want.name;
    EXPECT_EQ(ranks[i].min_ns, want.min_ns) << want.name;
    EXPECT_EQ(ranks[i].max_ns, want.max_ns) << want.name;
    EXPECT_EQ(v3_float(ranks[i].avg_ns), want.avg_text) << want.name;
    EXPECT_EQ(v3_percent(ranks[i].percent), want.percent_text) << want.name;
    EXPECT_EQ(v3_float(ranks[i].stddev_ns), want.stddev_text) << want.name;  // sample standard deviation
  }
  const auto copies =
      rank_kernels(parse_rocprofv3_memory_copy_trace(rank_in(trace_fixtures::kV3Dir, "48213_memory_copy_trace.csv"), "m"),
                   {.include_copies = true});
  const KernelStats copy_stats = parse_kernel_stats(rank_in(trace_fixtures::kV3Dir, "48213_memory_copy_stats.csv"), "ms");
  ASSERT_EQ(copies.size(), copy_stats.rows.size());
  for (std::size_t i = 0; i < copies.size(); ++i) {
    EXPECT_EQ(copies[i].name, copy_stats.rows[i].name);
    EXPECT_EQ(copies[i].total_ns, copy_stats.rows[i].total_ns);
    EXPECT_EQ(v3_percent(copies[i].percent), copy_stats.rows[i].percent_text);
    EXPECT_EQ(v3_float(copies[i].stddev_ns), copy_stats.rows[i].stddev_text);
    EXPECT_EQ(copies[i].category, KernelCategory::memcpy);
  }
}

void expect_nsys_summary(const std::vector<KernelRank>& ranks, const KernelStats& stats) {
  ASSERT_EQ(ranks.size(), stats.rows.size());
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    const KernelStatsRow& want = stats.rows[i];
    EXPECT_EQ(ranks[i].name, want.name) << "row " << i;
    EXPECT_EQ(ranks[i].calls, want.calls) << want.name;
    EXPECT_EQ(ranks[i].total_ns, want.total_ns) << want.name;
    EXPECT_EQ(ranks[i].min_ns, want.min_ns) << want.name;
    EXPECT_EQ(ranks[i].max_ns, want.max_ns) << want.name;
    EXPECT_EQ(fmt::format("{:.1f}", ranks[i].avg_ns), want.avg_text) << want.name;
    EXPECT_EQ(fmt::format("{:.1f}", ranks[i].median_ns), want.median_text) << want.name;
    EXPECT_EQ(fmt::format("{:.1f}", ranks[i].stddev_ns), want.stddev_text) << want.name;
    EXPECT_EQ(fmt::format("{:.1f}", ranks[i].percent), want.percent_text) << want.name;
  }
}

TEST(RankKernels, ReproducesNsysKernelAndMemoryTimeSummariesExactly) {
  SB_REQUIRE_SHARED_FIXTURES();
  KernelTrace trace = parse_nsys_gpu_trace(rank_in(trace_fixtures::kNsysDir, "vllm_cuda_gpu_trace.csv"), "t");
  expect_nsys_summary(rank_kernels(trace),
                      parse_kernel_stats(rank_in(trace_fixtures::kNsysDir, "vllm_cuda_gpu_kern_sum.csv"), "k"));
  std::erase_if(trace.events, [](const KernelEvent& e) { return e.kind == OpKind::kernel; });
  expect_nsys_summary(rank_kernels(trace, {.include_copies = true}),
                      parse_kernel_stats(rank_in(trace_fixtures::kNsysDir, "vllm_cuda_gpu_mem_time_sum.csv"), "m"));
}

TEST(RankKernels, BaseNamesJoinTorchAndNsysSpellingsOfTheSameRun) {
  SB_REQUIRE_SHARED_FIXTURES();
  const RankOptions by_base{.key = NameKey::base, .include_copies = true};
  const auto nsys =
      rank_kernels(parse_nsys_gpu_trace(rank_in(trace_fixtures::kNsysDir, "vllm_cuda_gpu_trace.csv"), "t"), by_base);
  const auto torch = rank_kernels(parse_torch_trace(fixture_text(trace_fixtures::kTorchFile), "j"), by_base);
  ASSERT_EQ(torch.size(), nsys.size());  // 3 copy/memset names each, spelled differently, + 13 kernels
  std::int64_t nsys_kernel_ns = 0, torch_kernel_ns = 0;
  for (const KernelRank& r : nsys) nsys_kernel_ns += r.category == KernelCategory::memcpy ? 0 : r.total_ns;
  for (const KernelRank& r : torch) torch_kernel_ns += r.category == KernelCategory::memcpy ? 0 : r.total_ns;
  EXPECT_EQ(torch_kernel_ns, nsys_kernel_ns);
  for (const KernelRank& t : torch) {
    if (t.category == KernelCategory::memcpy) continue;
    const auto n = std::find_if(nsys.begin(), nsys.end(), [&](const KernelRank& r) { return r.name == t.name; });
    ASSERT_NE(n, nsys.end()) << t.name;
    EXPECT_EQ(n->total_ns, t.total_ns) << t.name;
    EXPECT_EQ(n->calls, t.calls) << t.name;
  }
}

TEST(RankKernels, HandBuiltKnownAnswersAndCategoryTotals) {
  KernelTrace t;
  const auto add = [&](std::string name, std::int64_t start, std::int64_t dur, OpKind kind = OpKind::kernel) {
    t.events.push_back({.name = std::move(name), .start_ns = start, .end_ns = start + dur, .kind = kind});
  };
  add("nvjet_a", 0, 10);
  add("nvjet_a", 20, 30);
  add("nvjet_a", 60, 20);
  add("ncclDevKernel_AllReduce", 100, 60);
  add("[CUDA memset]", 200, 40, OpKind::memset);
  const auto r = rank_kernels(t);
  ASSERT_EQ(r.size(), 2u);  // the memset is left out by default
  EXPECT_EQ(r[0].name, "nvjet_a");
  EXPECT_EQ(r[0].total_ns, 60);
  EXPECT_EQ(r[0].calls, 3);
  EXPECT_EQ(r[0].avg_ns, 20.0);
  EXPECT_EQ(r[0].median_ns, 20.0);
  EXPECT_EQ(r[0].stddev_ns, 10.0);  // sqrt((100 + 100 + 0) / 2)
  EXPECT_EQ(r[0].percent, 50.0);
  EXPECT_EQ(r[0].category, KernelCategory::gemm);
  EXPECT_EQ(r[1].name, "ncclDevKernel_AllReduce");  // tie on total: more calls first
  const auto totals = category_totals(rank_kernels(t, {.include_copies = true}));
  EXPECT_EQ(totals[static_cast<std::size_t>(KernelCategory::gemm)].total_ns, 60);
  EXPECT_EQ(totals[static_cast<std::size_t>(KernelCategory::communication)].total_ns, 60);
  EXPECT_EQ(totals[static_cast<std::size_t>(KernelCategory::memcpy)].total_ns, 40);
  EXPECT_EQ(totals[static_cast<std::size_t>(KernelCategory::memcpy)].percent, 25.0);
  EXPECT_TRUE(rank_kernels(KernelTrace{}).empty());
}

// The same reproductions on the project's own samples (tests/data/trace/authored/): generate.py wrote
// each summary from the trace beside it, independently of this code.
TEST(RankKernels, OwnSampleReproducesRocprofV1ResultsStatsExactly) {
  const auto ranks =
      rank_kernels(parse_rocprof_v1_csv(trace_fixtures::own_text(trace_fixtures::kOwnV1Dir, "results.csv"), "results.csv"));
  const KernelStats stats =
      parse_kernel_stats(trace_fixtures::own_text(trace_fixtures::kOwnV1Dir, "results.stats.csv"), "results.stats.csv");
  ASSERT_EQ(ranks.size(), 10u);  // 14 dispatches of 10 kernels
  ASSERT_EQ(ranks.size(), stats.rows.size());
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    const KernelStatsRow& want = stats.rows[i];
    EXPECT_EQ(ranks[i].name, want.name) << "row " << i;
    EXPECT_EQ(ranks[i].calls, want.calls) << want.name;
    EXPECT_EQ(ranks[i].total_ns, want.total_ns) << want.name;
    EXPECT_EQ(ranks[i].total_ns / ranks[i].calls, want.avg_ns) << want.name;
    EXPECT_EQ(ranks[i].percent, want.percent) << want.name;
  }
  // By hand: 10 000 + 18 000 ns of the QKV GEMM out of 100 000 ns.
  EXPECT_EQ(ranks[0].name, "Cijk_Alik_Bljk_HHS_BH_MT64x32x64_MI16x16x1_SBTEST.kd");
  EXPECT_EQ(ranks[0].total_ns, 28'000);
  EXPECT_EQ(ranks[0].percent, 28.0);
  EXPECT_EQ(ranks[0].median_ns, 14'000.0);
  EXPECT_EQ(ranks[0].category, KernelCategory::gemm);
  EXPECT_EQ(ranks[1].category, KernelCategory::communication);
  EXPECT_EQ(ranks[9].name, "__amd_rocclr_fillBufferAligned.kd");
  EXPECT_EQ(ranks[9].category, KernelCategory::memcpy);
}

TEST(RankKernels, OwnSampleReproducesRocprofv3KernelAndCopyStatsExactly) {
  const auto ranks =
      rank_kernels(parse_rocprofv3_kernel_trace(trace_fixtures::own_text(trace_fixtures::kOwnV3Dir, "7301_kernel_trace.csv"), "k"));
  const KernelStats stats = parse_kernel_stats(trace_fixtures::own_text(trace_fixtures::kOwnV3Dir, "7301_kernel_stats.csv"), "s");
  ASSERT_EQ(ranks.size(), 10u);
  ASSERT_EQ(ranks.size(), stats.rows.size());
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    const KernelStatsRow& want = stats.rows[i];
    EXPECT_EQ(ranks[i].name, want.name) << "row " << i;
    EXPECT_EQ(ranks[i].calls, want.calls) << want.name;
    EXPECT_EQ(ranks[i].total_ns, want.total_ns) << want.name;
    EXPECT_EQ(ranks[i].min_ns, want.min_ns) << want.name;
    EXPECT_EQ(ranks[i].max_ns, want.max_ns) << want.name;
    EXPECT_EQ(v3_float(ranks[i].avg_ns), want.avg_text) << want.name;
    EXPECT_EQ(v3_percent(ranks[i].percent), want.percent_text) << want.name;
    EXPECT_EQ(v3_float(ranks[i].stddev_ns), want.stddev_text) << want.name;
  }
  EXPECT_EQ(ranks[2].avg_ns, 8500.5);              // (8000 + 9001) / 2
  EXPECT_EQ(ranks[0].stddev_ns, std::sqrt(32e6));  // 10 000 and 18 000 around 14 000
  const auto copies = rank_kernels(
      parse_rocprofv3_memory_copy_trace(trace_fixtures::own_text(trace_fixtures::kOwnV3Dir, "7301_memory_copy_trace.csv"), "m"),
      {.include_copies = true});
  const KernelStats copy_stats =
      parse_kernel_stats(trace_fixtures::own_text(trace_fixtures::kOwnV3Dir, "7301_memory_copy_stats.csv"), "ms");
  ASSERT_EQ(copies.size(), 2u);
  ASSERT_EQ(copies.size(), copy_stats.rows.size());
  for (std::size_t i = 0; i < copies.size(); ++i) {
    EXPECT_EQ(copies[i].name, copy_stats.rows[i].name);
    EXPECT_EQ(copies[i].total_ns, copy_stats.rows[i].total_ns);
    EXPECT_EQ(v3_percent(copies[i].percent), copy_stats.rows[i].percent_text);
    EXPECT_EQ(v3_float(copies[i].stddev_ns), copy_stats.rows[i].stddev_text);
    EXPECT_EQ(copies[i].category, KernelCategory::memcpy);
  }
  EXPECT_EQ(copies[0].total_ns, 9000);  // 5000 + 4000 ns host-to-device
  EXPECT_EQ(copies[0].percent, 60.0);
}

TEST(RankKernels, OwnSampleReproducesNsysKernelAndMemoryTimeSummariesExactly) {
  KernelTrace trace = parse_nsys_gpu_trace(trace_fixtures::own_text(trace_fixtures::kOwnNsysDir, "sbtest_cuda_gpu_trace.csv"), "t");
  const auto kernels = rank_kernels(trace);
  expect_nsys_summary(kernels,
                      parse_kernel_stats(trace_fixtures::own_text(trace_fixtures::kOwnNsysDir, "sbtest_cuda_gpu_kern_sum.csv"), "k"));
  ASSERT_EQ(kernels.size(), 11u);
  EXPECT_EQ(kernels[0].total_ns, 20'000);  // 9000 + 11 000
  EXPECT_EQ(kernels[0].percent, 20'000 * 100.0 / 72'500);
  std::erase_if(trace.events, [](const KernelEvent& e) { return e.kind == OpKind::kernel; });
  const auto copies = rank_kernels(trace, {.include_copies = true});
  expect_nsys_summary(
      copies, parse_kernel_stats(trace_fixtures::own_text(trace_fixtures::kOwnNsysDir, "sbtest_cuda_gpu_mem_time_sum.csv"), "m"));
  ASSERT_EQ(copies.size(), 3u);
  EXPECT_EQ(copies[0].total_ns, 2600);  // 1500 + 1100
  EXPECT_EQ(copies[2].name, "[CUDA memset]");
}

TEST(RankKernels, OwnSampleBaseNamesJoinTorchAndNsysSpellingsOfTheSameStep) {
  const RankOptions by_base{.key = NameKey::base, .include_copies = true};
  const auto nsys = rank_kernels(
      parse_nsys_gpu_trace(trace_fixtures::own_text(trace_fixtures::kOwnNsysDir, "sbtest_cuda_gpu_trace.csv"), "t"), by_base);
  const auto torch = rank_kernels(parse_torch_trace(trace_fixtures::authored_text(trace_fixtures::kOwnTorchFile), "j"), by_base);
  ASSERT_EQ(torch.size(), 14u);  // 3 copy/memset names each, spelled differently, + 11 kernels
  ASSERT_EQ(torch.size(), nsys.size());
  std::int64_t nsys_kernel_ns = 0, torch_kernel_ns = 0;
  for (const KernelRank& r : nsys) nsys_kernel_ns += r.category == KernelCategory::memcpy ? 0 : r.total_ns;
  for (const KernelRank& r : torch) torch_kernel_ns += r.category == KernelCategory::memcpy ? 0 : r.total_ns;
  EXPECT_EQ(nsys_kernel_ns, 72'500);
  EXPECT_EQ(torch_kernel_ns, nsys_kernel_ns);
  for (const KernelRank& t : torch) {
    if (t.category == KernelCategory::memcpy) continue;
    const auto n = std::find_if(nsys.begin(), nsys.end(), [&](const KernelRank& r) { return r.name == t.name; });
    ASSERT_NE(n, nsys.end()) << t.name;
    EXPECT_EQ(n->total_ns, t.total_ns) << t.name;
    EXPECT_EQ(n->calls, t.calls) << t.name;
  }
  EXPECT_EQ(torch[0].name, "nvjet_tst_sbtest_64x16_TNT");
  const auto norm =
      std::find_if(torch.begin(), torch.end(), [](auto& r) { return r.name == "sbtest::rms_norm_kernel"; });
  ASSERT_NE(norm, torch.end());
  EXPECT_EQ(norm->calls, 2);
  EXPECT_EQ(norm->total_ns, 4200);
}

}  // namespace
}  // namespace sb::trace
