// CSV splitting for profiler files. Quoting follows RFC 4180 ("" is an escaped quote); a quote that
// does not open a field is kept literally, which is what naive writers (ROCm) produce.
#include "trace/csv.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <fmt/format.h>

#include "core/error.hpp"

namespace sb::trace {
namespace {

constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";  // CSVs saved by Windows tools

// The n-th cell of a reused row, emptied (its capacity kept).
std::string& cell_slot(CsvRow& row, std::size_t n) {
  if (n == row.cells.size()) row.cells.emplace_back();
  row.cells[n].clear();
  return row.cells[n];
}

}  // namespace

CsvCursor::CsvCursor(std::string_view text) : text_(text) {
  if (text_.starts_with(kUtf8Bom)) text_.remove_prefix(kUtf8Bom.size());
}

// Reads one quoted field after its opening quote; false if the text ends first.
bool CsvCursor::quoted_field(std::string& cell) {
  while (pos_ < text_.size()) {
    const char c = text_[pos_++];
    if (c == '\n') ++line_;
    if (c != '"') {
      cell += c;
      continue;
    }
    if (pos_ < text_.size() && text_[pos_] == '"') {  // "" -> "
      cell += '"';
      ++pos_;
      continue;
    }
    return true;
  }
  return false;
}

bool CsvCursor::skip_blank_lines() {
  bool skipped = false;
  while (pos_ < text_.size() && (text_[pos_] == '\n' || text_[pos_] == '\r')) {
    if (text_[pos_] == '\n') ++line_;
    ++pos_;
    skipped = true;
  }
  return skipped;
}

bool CsvCursor::next(CsvRow& row) {
  const bool blank = skip_blank_lines();
  if (at_end()) return false;
  row.line = line_;
  row.complete = true;
  row.after_blank = blank && rows_read_ > 0;
  ++rows_read_;
  std::size_t n = 0;
  std::string* cell = &cell_slot(row, n);
  bool at_field_start = true;
  while (pos_ < text_.size()) {
    const char c = text_[pos_++];
    if (c == '"' && at_field_start) {
      at_field_start = false;
      if (!quoted_field(*cell)) break;  // the text ended inside quotes
    } else if (c == ',') {
      cell = &cell_slot(row, ++n);
      at_field_start = true;
    } else if (c == '\n' || c == '\r') {
      if (c == '\r' && pos_ < text_.size() && text_[pos_] == '\n') ++pos_;
      ++line_;
      row.cells.resize(n + 1);
      return true;
    } else {
      *cell += c;
      at_field_start = false;
    }
  }
  row.cells.resize(n + 1);
  row.complete = false;  // no newline at the end: maybe cut off, maybe just unterminated
  return true;
}

std::vector<CsvRow> split_csv(std::string_view text) {
  CsvCursor cursor(text);
  std::vector<CsvRow> rows;
  CsvRow row;
  while (cursor.next(row)) rows.push_back(row);
  return rows;
}

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

bool is_missing_cell(std::string_view cell) {
  return cell.empty() || cell == "None" || cell == "N/A" || cell == "[N/A]" || cell == "[Not Supported]";
}

CsvTable::CsvTable(std::string source, CsvRow header, CsvCursor rest)
    : source_(std::move(source)), header_(std::move(header)), rest_(rest) {}

std::optional<std::size_t> CsvTable::find(std::string_view name) const {
  for (std::size_t i = 0; i < header_.cells.size(); ++i) {
    if (iequals(header_.cells[i], name)) return i;
  }
  return std::nullopt;
}

std::size_t CsvTable::require(std::string_view name) const {
  if (auto col = find(name)) return *col;
  throw UserError(fmt::format("{}:{}: missing column {}", source_, header_.line, name));
}

void CsvTable::fail(const CsvRow& row, std::size_t col, std::string_view what) const {
  throw UserError(fmt::format("{}:{}: column {}: {}", source_, row.line, header_.cells[col], what));
}

void CsvTable::fail_width(const CsvRow& row) const {
  throw UserError(fmt::format("{}:{}: expected {} columns, found {}", source_, row.line, header_.cells.size(),
                              row.cells.size()));
}

const std::string& CsvTable::text_at(const CsvRow& row, std::size_t col) const { return row.cells[col]; }

std::optional<std::int64_t> CsvTable::optional_int_at(const CsvRow& row, std::size_t col) const {
  const std::string& cell = row.cells[col];
  if (is_missing_cell(cell)) return std::nullopt;
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), value);
  if (ec != std::errc{} || end != cell.data() + cell.size()) fail(row, col, fmt::format("bad integer '{}'", cell));
  return value;
}

std::int64_t CsvTable::int_at(const CsvRow& row, std::size_t col) const {
  if (auto v = optional_int_at(row, col)) return *v;
  fail(row, col, "missing value");
}

double CsvTable::double_at(const CsvRow& row, std::size_t col) const {
  const std::string& cell = row.cells[col];
  double value = 0;
  const auto [end, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), value);
  if (cell.empty() || ec != std::errc{} || end != cell.data() + cell.size()) {
    fail(row, col, fmt::format("bad number '{}'", cell));
  }
  return value;
}

std::optional<CsvTable> read_csv_table(std::string_view text, std::string_view source,
                                       bool (*is_header)(const CsvRow&)) {
  CsvCursor cursor(text);
  CsvRow row;
  while (cursor.next(row)) {
    if (is_header(row)) return CsvTable(std::string(source), std::move(row), cursor);
  }
  return std::nullopt;
}

}  // namespace sb::trace
