#include "trace/parse_util.hpp"

#include <algorithm>
#include <charconv>
#include <fmt/format.h>

#include "core/error.hpp"

namespace sb::trace {

bool has_cells(const CsvRow& row, std::initializer_list<std::string_view> names) {
  return std::all_of(names.begin(), names.end(), [&](std::string_view n) {
    return std::any_of(row.cells.begin(), row.cells.end(), [&](const std::string& c) { return iequals(c, n); });
  });
}

std::optional<std::size_t> find_prefixed(const CsvRow& header, std::string_view prefix) {
  for (std::size_t i = 0; i < header.cells.size(); ++i) {
    const std::string& cell = header.cells[i];
    if (cell.size() >= prefix.size() && iequals(std::string_view(cell).substr(0, prefix.size()), prefix)) return i;
  }
  return std::nullopt;
}

bool first_row_is(std::string_view text, bool (*pred)(const CsvRow&)) {
  const auto rows = split_csv(text.substr(0, text.find('\n')));
  return !rows.empty() && pred(rows.front());
}

KernelTrace make_trace(std::string_view format, std::string_view clock, std::string_view source) {
  KernelTrace t;
  t.source_format = format;
  t.clock_domain = clock;
  t.files.emplace_back(source);
  return t;
}

void note_cut_off(KernelTrace& trace, std::string_view source, std::size_t line) {
  if (line != 0) trace.warnings.push_back(fmt::format("{}:{}: last row cut off (file truncated?), ignored", source, line));
}

void check_interval(const CsvTable& table, const CsvRow& row, const KernelEvent& event) {
  if (event.end_ns < event.start_ns) {
    throw UserError(fmt::format("{}:{}: end {} before start {}", table.source(), row.line, event.end_ns,
                                event.start_ns));
  }
}

std::optional<std::int64_t> trailing_number(std::string_view text) {
  while (!text.empty() && (text.back() == ')' || text.back() == ' ')) text.remove_suffix(1);
  std::size_t begin = text.size();
  while (begin > 0 && text[begin - 1] >= '0' && text[begin - 1] <= '9') --begin;
  if (begin == text.size()) return std::nullopt;
  std::int64_t value = 0;
  std::from_chars(text.data() + begin, text.data() + text.size(), value);
  return value;
}

}  // namespace sb::trace
