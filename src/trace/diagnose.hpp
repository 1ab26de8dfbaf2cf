#pragma once
// Diagnosis rules over the category mix and GPU busy time per load level (docs/kernels.md lists them
// with their thresholds). Each finding carries the numbers it was drawn from, so a reader can judge it.
#include <array>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "trace/align.hpp"
#include "trace/categories.hpp"

namespace sb::trace {

inline constexpr const char* kWholeTrace = "whole trace";

// One load level as the rules see it; a trace without a sweep is one point labelled "whole trace".
struct LoadPoint {
  std::string label;                                             // "c=64", "whole trace"
  double busy_percent = std::nan("");                            // NaN when unknown (no alignment)
  std::array<double, kAllCategories.size()> category_percent{};  // kAllCategories order, of GPU time
  double percent_of(KernelCategory c) const;
};

struct DiagnoseThresholds {
  double attention_growth_points = 10;  // attention share rises by at least this many points ...
  double attention_high_percent = 30;   // ... and ends at least this high
  double gemm_dominant_percent = 50;    // GEMM share at the lowest load
  double communication_percent = 15;    // all-reduce etc. share at any level
  double memcpy_percent = 10;           // copies share at any level
  double busy_low_percent = 50;         // GPU busy at the knee (or highest load) below this
};

struct Finding {
  std::string rule;      // "attention_bound", "weights_bound", "communication", "gpu_idle", "host_copies"
  std::string verdict;   // the one-line conclusion
  std::string evidence;  // the numbers behind it
};

// `points` are in load order (lowest first). `knee` indexes points; without it the last point stands in.
std::vector<Finding> diagnose(const std::vector<LoadPoint>& points, std::optional<std::size_t> knee,
                              const DiagnoseThresholds& t = {});

LoadPoint load_point(const StageKernels& stage);

}  // namespace sb::trace
