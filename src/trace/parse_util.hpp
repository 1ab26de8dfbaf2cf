#pragma once
// Small helpers shared by the CSV trace parsers.
#include <initializer_list>
#include <string_view>

#include "trace/csv.hpp"
#include "trace/kernel_event.hpp"

namespace sb::trace {

// True if the row contains every one of `names` as a cell (case-insensitive).
bool has_cells(const CsvRow& row, std::initializer_list<std::string_view> names);

// True if the first line of `text` parses as a row satisfying `pred`.
bool first_row_is(std::string_view text, bool (*pred)(const CsvRow&));

// An empty trace of the given format; notes a cut-off last row in `warnings`.
KernelTrace make_trace(std::string_view format, std::string_view clock, std::string_view source,
                       std::size_t truncated_line);

// end < start is a UserError "SOURCE:LINE: end before start".
void check_interval(const CsvTable& table, const CsvRow& row, const KernelEvent& event);

// Number inside "Agent 2" / "GPU 0" / "2" / "NVIDIA H100 80GB HBM3 (1)"; nullopt if none.
std::optional<std::int64_t> trailing_number(std::string_view text);

}  // namespace sb::trace
