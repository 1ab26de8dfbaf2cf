#include "trace/diagnose.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace sb::trace {
namespace {

// "at c=64", or "over the whole trace" when there are no stages.
std::string at(const std::string& label) { return label == kWholeTrace ? "over the " + label : "at " + label; }

std::size_t slot(KernelCategory c) {
  return static_cast<std::size_t>(std::find(kAllCategories.begin(), kAllCategories.end(), c) - kAllCategories.begin());
}

// Attention's share grows with load: each step reads the whole KV cache of every sequence in the batch.
std::optional<Finding> attention_rule(const std::vector<LoadPoint>& p, const DiagnoseThresholds& t) {
  if (p.size() < 2) return std::nullopt;
  const double lo = p.front().percent_of(KernelCategory::attention);
  const double hi = p.back().percent_of(KernelCategory::attention);
  if (hi - lo < t.attention_growth_points || hi < t.attention_high_percent) return std::nullopt;
  return Finding{
      "attention_bound", "attention-bound at high concurrency (KV reads dominate)",
      fmt::format("attention {:.1f}% of GPU time {} -> {:.1f}% {}", lo, at(p.front().label), hi, at(p.back().label))};
}

// GEMMs dominate at the lowest load: each step streams all weights for few tokens.
std::optional<Finding> gemm_rule(const std::vector<LoadPoint>& p, const DiagnoseThresholds& t) {
  const double g = p.front().percent_of(KernelCategory::gemm);
  if (g < t.gemm_dominant_percent) return std::nullopt;
  return Finding{"weights_bound", "weights-bound decode: increase batch (more concurrency or max-num-seqs)",
                 fmt::format("GEMM {:.1f}% of GPU time {}", g, at(p.front().label))};
}

std::optional<Finding> share_rule(const std::vector<LoadPoint>& p, KernelCategory c, double threshold, const char* rule,
                                  const char* verdict) {
  const auto worst = std::max_element(
      p.begin(), p.end(), [c](const LoadPoint& a, const LoadPoint& b) { return a.percent_of(c) < b.percent_of(c); });
  if (worst->percent_of(c) < threshold) return std::nullopt;
  return Finding{rule, verdict,
                 fmt::format("{} {:.1f}% of GPU time {} (threshold {:g}%)", category_name(c), worst->percent_of(c),
                             at(worst->label), threshold)};
}

// A GPU that idles at the knee is not what stops the server from going faster.
std::optional<Finding> idle_rule(const std::vector<LoadPoint>& p, std::optional<std::size_t> knee,
                                 const DiagnoseThresholds& t) {
  const std::size_t i = knee && *knee < p.size() ? *knee : p.size() - 1;
  const double busy = p[i].busy_percent;
  if (std::isnan(busy) || busy >= t.busy_low_percent) return std::nullopt;
  return Finding{"gpu_idle", "server-side scheduling/CPU or client limits, not GPU",
                 fmt::format("GPU busy {:.1f}% {} ({}; threshold {:g}%)", busy, at(p[i].label),
                             knee && *knee < p.size() ? "the knee" : "highest load", t.busy_low_percent)};
}

}  // namespace

double LoadPoint::percent_of(KernelCategory c) const { return category_percent[slot(c)]; }

std::vector<Finding> diagnose(const std::vector<LoadPoint>& points, std::optional<std::size_t> knee,
                              const DiagnoseThresholds& t) {
  std::vector<Finding> out;
  if (points.empty()) return out;
  for (auto f : {attention_rule(points, t), gemm_rule(points, t),
                 share_rule(points, KernelCategory::communication, t.communication_percent, "communication",
                            "tensor-parallel all-reduce overhead"),
                 idle_rule(points, knee, t),
                 share_rule(points, KernelCategory::memcpy, t.memcpy_percent, "host_copies",
                            "host-device copies take GPU time (pinned memory, fewer transfers)")})
    if (f) out.push_back(std::move(*f));
  return out;
}

LoadPoint load_point(const StageKernels& stage) {
  LoadPoint p;
  p.label = stage.stage.load_label;
  p.busy_percent = stage.busy_percent;
  for (std::size_t i = 0; i < kAllCategories.size(); ++i)
    p.category_percent[i] = stage.category_percent(kAllCategories[i]);
  return p;
}

}  // namespace sb::trace
