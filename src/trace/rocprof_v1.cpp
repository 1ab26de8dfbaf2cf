#include "trace/rocprof_v1.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "trace/csv.hpp"
#include "trace/parse_util.hpp"

namespace sb::trace {
namespace {

bool header_row(const CsvRow& row) { return has_cells(row, {"KernelName", "gpu-id"}); }

}  // namespace

bool is_rocprof_v1_header(std::string_view header_line) {
  return first_row_is(header_line, header_row);
}

KernelTrace parse_rocprof_v1_csv(std::string_view text, std::string_view source) {
  std::optional<CsvTable> parsed = read_csv_table(text, source, header_row);
  if (!parsed) throw UserError(fmt::format("{}: not a rocprof results.csv (no KernelName,gpu-id header)", source));
  const CsvTable& t = *parsed;
  if (!t.find("BeginNs") || !t.find("EndNs")) {
    throw UserError(fmt::format("{}:{}: no BeginNs/EndNs columns: rerun rocprof with --timestamp on or --stats",
                                source, t.header().line));
  }
  const std::size_t name = t.require("KernelName");
  const std::size_t gpu = t.require("gpu-id");
  const std::size_t queue = t.require("queue-id");
  const std::size_t begin = t.require("BeginNs");
  const std::size_t end = t.require("EndNs");
  const auto pid = t.find("pid");

  KernelTrace trace = make_trace("rocprof_v1", kClockBoottime, source);
  const std::size_t cut = t.for_each_row([&](const CsvRow& row) {
    KernelEvent e;
    e.name = t.text_at(row, name);
    e.device = static_cast<int>(t.int_at(row, gpu));
    e.queue = t.int_at(row, queue);
    e.stream = e.queue;  // v1 knows HSA queues only
    if (pid) e.pid = t.optional_int_at(row, *pid).value_or(-1);
    e.start_ns = t.int_at(row, begin);
    e.end_ns = t.int_at(row, end);
    check_interval(t, row, e);
    trace.events.push_back(std::move(e));
  });
  note_cut_off(trace, source, cut);
  return trace;
}

}  // namespace sb::trace
