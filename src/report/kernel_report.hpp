#pragma once
// Formatting only, for `servebench kernels`: terminal tables and the JSON document (docs/kernels.md).
// No computation beyond picking the top rows and turning ns into ms/us.
#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "trace/align.hpp"
#include "trace/diagnose.hpp"
#include "trace/kernel_event.hpp"
#include "trace/offset_estimate.hpp"
#include "trace/rank.hpp"

namespace sb::report {

struct KernelReport {
  const sb::trace::KernelTrace* trace = nullptr;
  std::vector<sb::trace::KernelRank> ranks;          // whole trace, already grouped (--by)
  std::vector<sb::trace::CategoryTotal> categories;  // whole trace
  std::optional<sb::trace::Alignment> alignment;     // with --results
  std::optional<sb::trace::OffsetEstimate> offset_estimate;  // when the offset was estimated (no clock matched)
  std::string alignment_note;                        // why there is no alignment, or what was left out
  std::vector<sb::trace::Finding> findings;
  std::size_t top = 10;
  bool by_category = false;  // --by category: category rows instead of kernel rows
};

// Column-aligned table: first column left, the rest right, two blanks between columns.
std::string render_table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows);

std::string ranking_text(const KernelReport& r);  // kernels (or categories) of the whole trace
// Per-stage busy time, top kernels and category mix.
std::string stages_text(const sb::trace::Alignment& a, std::size_t top);
std::string findings_text(const std::vector<sb::trace::Finding>& findings);
std::string report_text(const KernelReport& r);  // all of the above, in order

// Labels of the `top` groups with the most time over all stages.
std::vector<std::string> top_stage_groups(const sb::trace::Alignment& a, std::size_t top);

nlohmann::ordered_json report_json(const KernelReport& r);

}  // namespace sb::report
