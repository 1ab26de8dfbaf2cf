#pragma once
// Sans-I/O CSV reading for profiler outputs (profilers.md §9): RFC 4180 quoting with "" escapes,
// tolerant of the naive quoting ROCm writers use, CRLF or LF, missing final newline, blank lines
// and preamble lines before the header (nsys stdout). Columns are looked up by name, case-insensitive,
// so column order and extra columns never matter.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sb::trace {

struct CsvRow {
  std::vector<std::string> cells;
  std::size_t line = 0;   // 1-based line where the row starts
  bool complete = true;   // false: the text ended inside this row (no newline, or inside quotes)
  bool after_blank = false;  // one or more blank lines came right before this row
};

// Splits the whole text into rows; blank lines are skipped.
std::vector<CsvRow> split_csv(std::string_view text);

// A header row plus the data rows that follow it.
class CsvTable {
 public:
  CsvTable(std::string source, CsvRow header, std::vector<CsvRow> rows);

  // Index of the column named `name` (case-insensitive), if present.
  std::optional<std::size_t> find(std::string_view name) const;
  // Same, but a missing column is a UserError "SOURCE:LINE: missing column NAME".
  std::size_t require(std::string_view name) const;

  const std::vector<CsvRow>& rows() const noexcept { return rows_; }
  const CsvRow& header() const noexcept { return header_; }
  const std::string& source() const noexcept { return source_; }

  // Typed cell access; a bad value is a UserError "SOURCE:LINE: column NAME: bad integer 'x'".
  std::int64_t int_at(const CsvRow& row, std::size_t col) const;
  std::optional<std::int64_t> optional_int_at(const CsvRow& row, std::size_t col) const;  // sentinels -> nullopt
  double double_at(const CsvRow& row, std::size_t col) const;
  const std::string& text_at(const CsvRow& row, std::size_t col) const;

 private:
  [[noreturn]] void fail(const CsvRow& row, std::size_t col, std::string_view what) const;

  std::string source_;
  CsvRow header_;
  std::vector<CsvRow> rows_;
};

// Builds a table from the first row for which `is_header` holds (rows before it are preamble). The
// rows after the header run until a blank line: nsys prints several tables into one stream, each
// ended by a blank line and followed by progress lines. Rows with a different cell count are UserErrors naming SOURCE:LINE, except a last
// row cut off by the end of the text, which is dropped and reported in `truncated_line`.
struct CsvParse {
  std::optional<CsvTable> table;
  std::size_t truncated_line = 0;  // 0 when the text was not cut off mid-row
};
CsvParse read_csv_table(std::string_view text, std::string_view source, bool (*is_header)(const CsvRow&));

// Sentinels the tools print for "no value": empty, None, N/A, [N/A], [Not Supported].
bool is_missing_cell(std::string_view cell);
bool iequals(std::string_view a, std::string_view b);

}  // namespace sb::trace
