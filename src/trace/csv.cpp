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

struct Splitter {
  std::string_view text;
  std::size_t pos = 0;
  std::size_t line = 1;

  // Reads one quoted field starting after the opening quote; returns false if the text ends first.
  bool quoted_field(std::string& cell) {
    while (pos < text.size()) {
      const char c = text[pos++];
      if (c == '\n') ++line;
      if (c != '"') {
        cell += c;
        continue;
      }
      if (pos < text.size() && text[pos] == '"') {  // "" -> "
        cell += '"';
        ++pos;
        continue;
      }
      return true;
    }
    return false;
  }

  // Reads one row starting at pos (which is not at a line end).
  CsvRow row() {
    CsvRow r;
    r.line = line;
    std::string cell;
    bool at_field_start = true;
    while (pos < text.size()) {
      const char c = text[pos++];
      if (c == '"' && at_field_start) {
        at_field_start = false;
        if (!quoted_field(cell)) {
          r.complete = false;
          break;
        }
      } else if (c == ',') {
        r.cells.push_back(std::move(cell));
        cell.clear();
        at_field_start = true;
      } else if (c == '\n' || c == '\r') {
        if (c == '\r' && pos < text.size() && text[pos] == '\n') ++pos;
        ++line;
        r.cells.push_back(std::move(cell));
        return r;
      } else {
        cell += c;
        at_field_start = false;
      }
    }
    r.cells.push_back(std::move(cell));
    r.complete = false;  // the text ended without a newline (maybe cut off, maybe just unterminated)
    return r;
  }

  // Skips blank lines; returns true if any were skipped.
  bool skip_blank_lines() {
    bool skipped = false;
    while (pos < text.size() && (text[pos] == '\n' || text[pos] == '\r')) {
      if (text[pos] == '\n') ++line;
      ++pos;
      skipped = true;
    }
    return skipped;
  }
};

}  // namespace

std::vector<CsvRow> split_csv(std::string_view text) {
  constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";  // CSVs saved by Windows tools
  if (text.starts_with(kUtf8Bom)) text.remove_prefix(kUtf8Bom.size());
  Splitter s{text};
  std::vector<CsvRow> rows;
  while (true) {
    const bool blank = s.skip_blank_lines();
    if (s.pos >= text.size()) break;
    rows.push_back(s.row());
    rows.back().after_blank = blank && rows.size() > 1;
  }
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

CsvTable::CsvTable(std::string source, CsvRow header, std::vector<CsvRow> rows)
    : source_(std::move(source)), header_(std::move(header)), rows_(std::move(rows)) {}

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

CsvParse read_csv_table(std::string_view text, std::string_view source, bool (*is_header)(const CsvRow&)) {
  std::vector<CsvRow> rows = split_csv(text);
  const auto header = std::find_if(rows.begin(), rows.end(), is_header);
  CsvParse out;
  if (header == rows.end()) return out;
  std::vector<CsvRow> data;
  for (auto it = header + 1; it != rows.end() && !it->after_blank; ++it) {
    if (it->cells.size() != header->cells.size()) {
      if (!it->complete && it + 1 == rows.end()) {
        out.truncated_line = it->line;  // the file was cut off mid-row: keep what came before
        break;
      }
      throw UserError(fmt::format("{}:{}: expected {} columns, found {}", source, it->line, header->cells.size(),
                                  it->cells.size()));
    }
    data.push_back(std::move(*it));
  }
  out.table.emplace(std::string(source), std::move(*header), std::move(data));
  return out;
}

}  // namespace sb::trace
