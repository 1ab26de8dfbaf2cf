#include "trace/rocprofv3.hpp"

#include <charconv>
#include <fmt/format.h>

#include "core/error.hpp"
#include "trace/csv.hpp"
#include "trace/parse_util.hpp"

namespace sb::trace {
namespace {

bool kernel_header(const CsvRow& row) { return has_cells(row, {"Kind", "Kernel_Name", "Start_Timestamp"}); }
bool copy_header(const CsvRow& row) { return has_cells(row, {"Kind", "Direction", "Start_Timestamp"}); }

// "48213_kernel_trace.csv" (any directory) -> 48213.
std::int64_t pid_from_source(std::string_view source) {
  const std::size_t slash = source.find_last_of('/');
  const std::string_view file = slash == std::string_view::npos ? source : source.substr(slash + 1);
  std::int64_t pid = -1;
  const auto [end, ec] = std::from_chars(file.data(), file.data() + file.size(), pid);
  if (ec != std::errc{} || end == file.data() + file.size() || *end != '_') return -1;
  return pid;
}

// Agent ids are "Agent 2" (current), "GPU 0" (type-relative) or a bare number (older builds).
int agent_number(const CsvTable& t, const CsvRow& row, std::size_t col) {
  const auto n = trailing_number(t.text_at(row, col));
  if (!n) throw UserError(fmt::format("{}:{}: bad agent id '{}'", t.source(), row.line, t.text_at(row, col)));
  return static_cast<int>(*n);
}

CsvTable require_table(std::optional<CsvTable>& parsed, std::string_view source, std::string_view what) {
  if (!parsed) throw UserError(fmt::format("{}: not a rocprofv3 {} (no matching header)", source, what));
  return std::move(*parsed);
}

}  // namespace

bool is_rocprofv3_kernel_header(std::string_view header_line) { return first_row_is(header_line, kernel_header); }
bool is_rocprofv3_memory_copy_header(std::string_view header_line) { return first_row_is(header_line, copy_header); }

KernelTrace parse_rocprofv3_kernel_trace(std::string_view text, std::string_view source) {
  std::optional<CsvTable> parsed = read_csv_table(text, source, kernel_header);
  const CsvTable t = require_table(parsed, source, "kernel_trace.csv");
  const std::size_t name = t.require("Kernel_Name");
  const std::size_t agent = t.require("Agent_Id");
  const std::size_t start = t.require("Start_Timestamp");
  const std::size_t end = t.require("End_Timestamp");
  const auto queue = t.find("Queue_Id");
  const auto stream = t.find("Stream_Id");
  const auto corr = t.find("Correlation_Id");
  const std::int64_t pid = pid_from_source(source);

  KernelTrace trace = make_trace("rocprofv3", kClockBoottime, source);
  const std::size_t cut = t.for_each_row([&](const CsvRow& row) {
    KernelEvent e;
    e.name = t.text_at(row, name);
    e.device = agent_number(t, row, agent);
    if (queue) e.queue = t.optional_int_at(row, *queue).value_or(-1);
    // The old layout has no streams: fall back to the queue, as rocprof v1 does.
    e.stream = stream ? t.optional_int_at(row, *stream).value_or(0) : e.queue;
    if (corr) e.correlation = t.optional_int_at(row, *corr).value_or(-1);
    e.pid = pid;
    e.start_ns = t.int_at(row, start);
    e.end_ns = t.int_at(row, end);
    check_interval(t, row, e);
    trace.events.push_back(std::move(e));
  });
  note_cut_off(trace, source, cut);
  return trace;
}

KernelTrace parse_rocprofv3_memory_copy_trace(std::string_view text, std::string_view source) {
  std::optional<CsvTable> parsed = read_csv_table(text, source, copy_header);
  const CsvTable t = require_table(parsed, source, "memory_copy_trace.csv");
  const std::size_t direction = t.require("Direction");
  const std::size_t src = t.require("Source_Agent_Id");
  const std::size_t dst = t.require("Destination_Agent_Id");
  const std::size_t start = t.require("Start_Timestamp");
  const std::size_t end = t.require("End_Timestamp");
  const auto stream = t.find("Stream_Id");
  const auto corr = t.find("Correlation_Id");
  const std::int64_t pid = pid_from_source(source);

  KernelTrace trace = make_trace("rocprofv3", kClockBoottime, source);
  const std::size_t cut = t.for_each_row([&](const CsvRow& row) {
    KernelEvent e;
    e.name = t.text_at(row, direction);
    e.kind = OpKind::memcpy;
    // The GPU side of the copy: the destination for host-to-device, else the source.
    const bool to_device = e.name.find("HOST_TO_DEVICE") != std::string::npos;
    e.device = agent_number(t, row, to_device ? dst : src);
    if (stream) e.stream = t.optional_int_at(row, *stream).value_or(0);
    if (corr) e.correlation = t.optional_int_at(row, *corr).value_or(-1);
    e.pid = pid;
    e.start_ns = t.int_at(row, start);
    e.end_ns = t.int_at(row, end);
    check_interval(t, row, e);
    trace.events.push_back(std::move(e));
  });
  note_cut_off(trace, source, cut);
  return trace;
}

}  // namespace sb::trace
