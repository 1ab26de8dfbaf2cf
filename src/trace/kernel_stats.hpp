#pragma once
// Per-kernel summary files the profilers write themselves: rocprof v1 results.stats.csv (and its
// copy/hip/hsa siblings), rocprofv3 *_kernel_stats.csv / *_memory_copy_stats.csv, and nsys
// cuda_gpu_kern_sum / cuda_gpu_mem_time_sum (also the stdout variant with progress lines). They let a
// user read a tool's own ranking and let tests check rank_kernels() against it. Cells are kept as
// printed too, because each tool rounds differently.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sb::trace {

struct KernelStatsRow {
  std::string name;
  std::int64_t calls = 0;
  double total_ns = 0;  // integer in every observed file; double so "(us)" summaries fit too
  double avg_ns = 0;
  double percent = 0;
  std::optional<double> median_ns, min_ns, max_ns, stddev_ns;  // when the file has them
  std::string avg_text, percent_text, median_text, stddev_text;  // as printed
  std::size_t line = 0;
};

struct KernelStats {
  std::string source_format;  // "rocprof" (v1 and v3 share the layout) | "nsys"
  std::vector<KernelStatsRow> rows;
};

KernelStats parse_kernel_stats(std::string_view text, std::string_view source);

// True if `head` holds a rocprof stats header or an nsys *_sum header.
bool has_kernel_stats_header(std::string_view head);

}  // namespace sb::trace
