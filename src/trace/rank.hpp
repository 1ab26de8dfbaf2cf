#pragma once
// Per-kernel aggregation: rank_kernels() groups a trace's events by name and sorts by total time, the
// way the profilers' own summaries do (rocprof v1/v3 *stats.csv, nsys cuda_gpu_kern_sum), so the
// numbers can be checked against those files exactly.
#include <cstdint>
#include <string>
#include <vector>

#include "trace/categories.hpp"
#include "trace/kernel_event.hpp"

namespace sb::trace {

enum class NameKey {
  raw,         // as printed: reproduces the tool's own stats file
  normalized,  // ".kd" suffixes stripped (normalize_kernel_name)
  base,        // kernel_base_name for kernels (the cross-tool join key); copies keep the normalised name
};

struct RankOptions {
  NameKey key = NameKey::raw;
  bool include_copies = false;  // memcpy/memset events (nsys kern_sum and rocprof kernel stats leave them out)
};

struct KernelRank {
  std::string name;
  KernelCategory category = KernelCategory::other;
  std::int64_t calls = 0;
  std::int64_t total_ns = 0;
  std::int64_t min_ns = 0;
  std::int64_t max_ns = 0;
  double avg_ns = 0;       // total / calls, not truncated (rocprof v1 prints total / calls in integers)
  double median_ns = 0;    // middle value, mean of the two middle ones for even counts
  double stddev_ns = 0;    // sample standard deviation (n − 1); 0 for one call
  double percent = 0;      // total × 100.0 / Σ total over the ranked rows
};

// Sorted by total desc, then calls desc, then name asc (nsys order; rocprof has no ties in practice).
std::vector<KernelRank> rank_kernels(const KernelTrace& trace, const RankOptions& options = {});

// Total ns per category over the same rows, in kAllCategories order (categories with no time included).
struct CategoryTotal {
  KernelCategory category;
  std::int64_t total_ns = 0;
  double percent = 0;
};
std::vector<CategoryTotal> category_totals(const std::vector<KernelRank>& ranks);

}  // namespace sb::trace
