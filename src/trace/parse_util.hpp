#pragma once
// Small helpers shared by the CSV trace parsers.
#include <initializer_list>
#include <string_view>

#include "trace/csv.hpp"
#include "trace/kernel_event.hpp"

namespace sb::trace {

// True if the row contains every one of `names` as a cell (case-insensitive).
bool has_cells(const CsvRow& row, std::initializer_list<std::string_view> names);

// First header cell starting with `prefix` (case-insensitive): "Start (" matches "Start (ns)" and "Start (us)".
std::optional<std::size_t> find_prefixed(const CsvRow& header, std::string_view prefix);

// True if the first line of `text` parses as a row satisfying `pred`.
bool first_row_is(std::string_view text, bool (*pred)(const CsvRow&));

// An empty trace of the given format read from `source`.
KernelTrace make_trace(std::string_view format, std::string_view clock, std::string_view source);

// Notes a cut-off last row (CsvTable::for_each_row's result, 0 = none) in `warnings`.
void note_cut_off(KernelTrace& trace, std::string_view source, std::size_t line);

// end < start is a UserError "SOURCE:LINE: end before start".
void check_interval(const CsvTable& table, const CsvRow& row, const KernelEvent& event);

// Number inside "Agent 2" / "GPU 0" / "2" / "NVIDIA H100 80GB HBM3 (1)"; nullopt if none.
std::optional<std::int64_t> trailing_number(std::string_view text);

}  // namespace sb::trace
