#pragma once
// Sans-I/O CSV reading for profiler outputs (docs/trace.md): RFC 4180 quoting with "" escapes,
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

// Reads rows one at a time, without copying the text: a 200 MB trace is never held as cells.
class CsvCursor {
 public:
  explicit CsvCursor(std::string_view text);
  // The next non-blank row into `row`, whose buffers are reused; false at the end of the text.
  bool next(CsvRow& row);
  bool at_end() const noexcept { return pos_ >= text_.size(); }

 private:
  bool quoted_field(std::string& cell);
  bool skip_blank_lines();

  std::string_view text_;
  std::size_t pos_ = 0;
  std::size_t line_ = 1;
  std::size_t rows_read_ = 0;
};

// All rows at once (small texts and header sniffing); blank lines are skipped.
std::vector<CsvRow> split_csv(std::string_view text);

// A header row plus a cursor on the rows after it.
class CsvTable {
 public:
  CsvTable(std::string source, CsvRow header, CsvCursor rest);

  // Index of the column named `name` (case-insensitive), if present.
  std::optional<std::size_t> find(std::string_view name) const;
  // Same, but a missing column is a UserError "SOURCE:LINE: missing column NAME".
  std::size_t require(std::string_view name) const;

  // Calls on_row(const CsvRow&) for each data row, up to a blank line (nsys prints several tables into
  // one stream, each ended by a blank line) or the end. A row with another cell count than the header
  // is a UserError "SOURCE:LINE: expected N columns, found M", except a last row cut off by the end of
  // the text: it is skipped and its line returned (0 when the text was not cut off mid-row).
  template <class OnRow>
  std::size_t for_each_row(OnRow&& on_row) const {
    CsvCursor cursor = rest_;
    CsvRow row;
    while (cursor.next(row) && !row.after_blank) {
      if (row.cells.size() != header_.cells.size()) {
        if (!row.complete && cursor.at_end()) return row.line;
        fail_width(row);
      }
      on_row(static_cast<const CsvRow&>(row));
    }
    return 0;
  }

  const CsvRow& header() const noexcept { return header_; }
  const std::string& source() const noexcept { return source_; }

  // Typed cell access; a bad value is a UserError "SOURCE:LINE: column NAME: bad integer 'x'".
  std::int64_t int_at(const CsvRow& row, std::size_t col) const;
  std::optional<std::int64_t> optional_int_at(const CsvRow& row, std::size_t col) const;  // sentinels -> nullopt
  double double_at(const CsvRow& row, std::size_t col) const;
  const std::string& text_at(const CsvRow& row, std::size_t col) const;

 private:
  [[noreturn]] void fail(const CsvRow& row, std::size_t col, std::string_view what) const;
  [[noreturn]] void fail_width(const CsvRow& row) const;

  std::string source_;
  CsvRow header_;
  CsvCursor rest_;
};

// The table under the first row for which `is_header` holds (rows before it are preamble), if any.
std::optional<CsvTable> read_csv_table(std::string_view text, std::string_view source,
                                       bool (*is_header)(const CsvRow&));

// Sentinels the tools print for "no value": empty, None, N/A, [N/A], [Not Supported].
bool is_missing_cell(std::string_view cell);
bool iequals(std::string_view a, std::string_view b);

}  // namespace sb::trace
