#include "trace/nsys.hpp"

#include <cmath>
#include <fmt/format.h>

#include "core/error.hpp"
#include "trace/csv.hpp"
#include "trace/parse_util.hpp"

namespace sb::trace {
namespace {

bool gpu_trace_header(const CsvRow& row) {
  return find_prefixed(row, "Start (") && find_prefixed(row, "Duration (") && has_cells(row, {"Name"});
}

// A time cell in the header's unit, as integer ns (ns cells are integers; other units may have decimals).
std::int64_t time_cell_ns(const CsvTable& t, const CsvRow& row, std::size_t col, double scale) {
  if (scale == 1.0) return t.int_at(row, col);
  return std::llround(t.double_at(row, col) * scale);
}

OpKind kind_of(std::string_view name) {
  if (name.starts_with("[CUDA memcpy")) return OpKind::memcpy;
  if (name.starts_with("[CUDA memset")) return OpKind::memset;
  return OpKind::kernel;
}

struct Columns {
  std::size_t start = 0, duration = 0, name = 0;
  double start_scale = 0, duration_scale = 0;
  std::optional<std::size_t> corr, device, stream, bytes;
  double bytes_scale = 1e6;  // "(MB)" = 10^6 B
};

Columns columns_of(const CsvTable& t, std::string_view source) {
  const CsvRow& h = t.header();
  Columns c;
  c.start = *find_prefixed(h, "Start (");
  c.duration = *find_prefixed(h, "Duration (");
  c.name = t.require("Name");
  c.start_scale = time_unit_to_ns(h.cells[c.start]);
  c.duration_scale = time_unit_to_ns(h.cells[c.duration]);
  if (c.start_scale == 0 || c.duration_scale == 0) {
    throw UserError(fmt::format("{}:{}: unknown time unit in '{}'/'{}'", source, h.line, h.cells[c.start],
                                h.cells[c.duration]));
  }
  c.corr = t.find("CorrId");
  c.device = t.find("Device");
  c.stream = t.find("Strm");
  c.bytes = find_prefixed(h, "Bytes (");
  if (c.bytes && !iequals(h.cells[*c.bytes], "Bytes (MB)")) {
    c.bytes_scale = iequals(h.cells[*c.bytes], "Bytes (B)") ? 1.0 : iequals(h.cells[*c.bytes], "Bytes (KB)") ? 1e3 : 1e9;
  }
  return c;
}

}  // namespace

double time_unit_to_ns(std::string_view cell) {
  if (cell.ends_with("(ns)")) return 1.0;
  if (cell.ends_with("(us)") || cell.ends_with("(μs)")) return 1e3;
  if (cell.ends_with("(ms)")) return 1e6;
  if (cell.ends_with("(s)")) return 1e9;
  return 0;
}

bool has_nsys_gpu_trace_header(std::string_view head) {
  for (const CsvRow& row : split_csv(head)) {
    if (gpu_trace_header(row)) return true;
  }
  return false;
}

KernelTrace parse_nsys_gpu_trace(std::string_view text, std::string_view source) {
  std::optional<CsvTable> parsed = read_csv_table(text, source, gpu_trace_header);
  if (!parsed) throw UserError(fmt::format("{}: not an nsys cuda_gpu_trace CSV (no Start/Duration/Name header)", source));
  const CsvTable& t = *parsed;
  const Columns c = columns_of(t, source);

  KernelTrace trace = make_trace("nsys", kClockNsysSession, source);
  const std::size_t cut = t.for_each_row([&](const CsvRow& row) {
    KernelEvent e;
    e.name = t.text_at(row, c.name);
    e.kind = kind_of(e.name);
    e.start_ns = time_cell_ns(t, row, c.start, c.start_scale);
    e.end_ns = e.start_ns + time_cell_ns(t, row, c.duration, c.duration_scale);
    if (c.corr) e.correlation = t.optional_int_at(row, *c.corr).value_or(-1);
    if (c.device) e.device = static_cast<int>(trailing_number(t.text_at(row, *c.device)).value_or(0));
    if (c.stream) e.stream = t.optional_int_at(row, *c.stream).value_or(0);
    if (c.bytes && !is_missing_cell(t.text_at(row, *c.bytes))) {
      e.bytes = std::llround(t.double_at(row, *c.bytes) * c.bytes_scale);
    }
    check_interval(t, row, e);
    trace.events.push_back(std::move(e));
  });
  note_cut_off(trace, source, cut);
  return trace;
}

}  // namespace sb::trace
