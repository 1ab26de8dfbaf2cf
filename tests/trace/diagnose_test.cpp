// Each rule on constructed category mixes: fires with its evidence numbers, stays quiet below threshold.
#include "trace/diagnose.hpp"

#include <gtest/gtest.h>

namespace sb::trace {
namespace {

std::size_t slot(KernelCategory c) {
  for (std::size_t i = 0; i < kAllCategories.size(); ++i)
    if (kAllCategories[i] == c) return i;
  return 0;
}

LoadPoint point(std::string label, double busy, std::initializer_list<std::pair<KernelCategory, double>> mix) {
  LoadPoint p;
  p.label = std::move(label);
  p.busy_percent = busy;
  for (const auto& [c, v] : mix) p.category_percent[slot(c)] = v;
  return p;
}

std::vector<std::string> rules(const std::vector<Finding>& f) {
  std::vector<std::string> out;
  for (const auto& x : f) out.push_back(x.rule);
  return out;
}

using KC = KernelCategory;
using Rules = std::vector<std::string>;

TEST(Diagnose, AttentionGrowingWithLoad) {
  const auto f = diagnose({point("c=1", 90, {{KC::attention, 12}, {KC::gemm, 40}}),
                           point("c=64", 95, {{KC::attention, 41}, {KC::gemm, 30}})},
                          std::nullopt);
  ASSERT_EQ(rules(f), Rules{"attention_bound"});
  EXPECT_EQ(f[0].verdict, "attention-bound at high concurrency (KV reads dominate)");
  EXPECT_EQ(f[0].evidence, "attention 12.0% of GPU time at c=1 -> 41.0% at c=64");
}

TEST(Diagnose, AttentionNeedsBothGrowthAndLevel) {
  // +25 points but ends at 29% (< 30): quiet. Ends at 45% but grew only 9 points: quiet.
  EXPECT_TRUE(diagnose({point("c=1", 90, {{KC::attention, 4}}), point("c=8", 90, {{KC::attention, 29}})}, {}).empty());
  EXPECT_TRUE(diagnose({point("c=1", 90, {{KC::attention, 36}}), point("c=8", 90, {{KC::attention, 45}})}, {}).empty());
}

TEST(Diagnose, GemmDominantAtLowestLoad) {
  const auto f = diagnose({point("c=1", 80, {{KC::gemm, 62}}), point("c=32", 80, {{KC::gemm, 45}})}, std::nullopt);
  ASSERT_EQ(rules(f), Rules{"weights_bound"});
  EXPECT_EQ(f[0].evidence, "GEMM 62.0% of GPU time at c=1");
  // Dominant only at high load: not weights-bound decode.
  EXPECT_TRUE(diagnose({point("c=1", 80, {{KC::gemm, 45}}), point("c=32", 80, {{KC::gemm, 62}})}, {}).empty());
}

TEST(Diagnose, CommunicationAndCopiesAtTheirWorstLevel) {
  const auto f = diagnose({point("c=1", 80, {{KC::communication, 10}, {KC::memcpy, 11}}),
                           point("c=8", 80, {{KC::communication, 22.5}, {KC::memcpy, 3}})},
                          std::nullopt);
  ASSERT_EQ(rules(f), (Rules{"communication", "host_copies"}));
  EXPECT_EQ(f[0].verdict, "tensor-parallel all-reduce overhead");
  EXPECT_EQ(f[0].evidence, "communication 22.5% of GPU time at c=8 (threshold 15%)");
  EXPECT_EQ(f[1].evidence, "memcpy 11.0% of GPU time at c=1 (threshold 10%)");
}

TEST(Diagnose, GpuIdleAtTheKneeNotAtTheLastLevel) {
  const std::vector<LoadPoint> p{point("c=1", 20, {}), point("c=16", 40, {}), point("c=64", 90, {})};
  const auto at_knee = diagnose(p, 1);
  ASSERT_EQ(rules(at_knee), Rules{"gpu_idle"});
  EXPECT_EQ(at_knee[0].verdict, "server-side scheduling/CPU or client limits, not GPU");
  EXPECT_EQ(at_knee[0].evidence, "GPU busy 40.0% at c=16 (the knee; threshold 50%)");
  EXPECT_TRUE(diagnose(p, std::nullopt).empty());  // highest load is 90% busy
}

TEST(Diagnose, WholeTraceHasNoBusyAndNoGrowth) {
  LoadPoint p = point(kWholeTrace, std::nan(""), {{KC::gemm, 54}, {KC::attention, 40}});
  const auto f = diagnose({p}, std::nullopt);
  ASSERT_EQ(rules(f), Rules{"weights_bound"});
  EXPECT_EQ(f[0].evidence, "GEMM 54.0% of GPU time over the whole trace");
}

TEST(Diagnose, ThresholdsAreParameters) {
  DiagnoseThresholds t;
  t.memcpy_percent = 2;
  EXPECT_EQ(rules(diagnose({point("c=1", 90, {{KC::memcpy, 3}})}, std::nullopt, t)), Rules{"host_copies"});
  EXPECT_TRUE(diagnose({}, std::nullopt).empty());
}

TEST(LoadPointFromStage, CopiesSharesAndBusy) {
  StageKernels s;
  s.stage.load_label = "c=2";
  s.busy_percent = 12.5;
  s.gpu_ns = 200;
  s.category_ns[slot(KC::gemm)] = 150;
  s.category_ns[slot(KC::attention)] = 50;
  const auto p = load_point(s);
  EXPECT_EQ(p.label, "c=2");
  EXPECT_DOUBLE_EQ(p.busy_percent, 12.5);
  EXPECT_DOUBLE_EQ(p.percent_of(KC::gemm), 75);
  EXPECT_DOUBLE_EQ(p.percent_of(KC::attention), 25);
}

}  // namespace
}  // namespace sb::trace
