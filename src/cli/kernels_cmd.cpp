// servebench kernels TRACE [--results SWEEP.json]: ranks and categorises the kernels of a profiler trace,
// lines them up with the load stages of a sweep document by wall-clock time, and diagnoses (docs/kernels.md).
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "cli/trace_placing.hpp"
#include "core/error.hpp"
#include "core/exit_codes.hpp"
#include "trace/align.hpp"
#include "trace/diagnose.hpp"
#include "report/kernel_report.hpp"
#include "trace/placement.hpp"
#include "trace/load.hpp"
#include "trace/rank.hpp"

namespace sb::cli {
namespace {

using namespace sb::trace;

struct KernelsFlags {
  std::string trace_path;
  std::string results_path;
  std::size_t top = 10;
  std::string by = "base";
  std::string format = "table";
  std::optional<std::int64_t> trace_offset_ns;
  std::optional<double> trace_start_unix_s;
};

NameKey name_key(const std::string& by) { return by == "name" ? NameKey::normalized : NameKey::base; }
GroupBy group_by(const std::string& by) {
  return by == "name" ? GroupBy::name : by == "category" ? GroupBy::category : GroupBy::base;
}

LoadPoint whole_trace_point(const std::vector<CategoryTotal>& cats) {
  LoadPoint p;
  p.label = kWholeTrace;
  for (std::size_t i = 0; i < cats.size() && i < p.category_percent.size(); ++i)
    p.category_percent[i] = cats[i].percent;
  return p;
}

// Stages the trace covers become load points; the knee keeps pointing at the same stage.
void add_alignment(const KernelsFlags& f, const KernelTrace& t, report::KernelReport& r) {
  const auto sweep = parse_sweep_stages(read_trace_file(f.results_path), f.results_path);
  const Placement placed =
      place_trace_or_refuse(t, sweep, {f.trace_offset_ns, f.trace_start_unix_s}, f.trace_path, f.results_path);
  const auto& resolved = placed.offset;
  if (resolved->source == trace::OffsetSource::estimated) r.offset_estimate = placed.estimate;
  const std::optional<std::int64_t> offset = resolved->ns;
  r.alignment = align_to_stages(t, sweep.stages, *offset, group_by(f.by));
  if (resolved->source == trace::OffsetSource::run_clocks)
    std::fprintf(stderr, "servebench kernels: trace clock %s placed with the run's own clocks (%s, "
                 "environment.clocks_at_start): exact when the trace was recorded on that host; "
                 "--trace-offset-ns overrides\n", t.clock_domain.c_str(), f.results_path.c_str());
  // Rules read "lowest load first"; a staircase may have been run in any order.
  std::vector<std::size_t> order(r.alignment->stages.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return r.alignment->stages[a].stage.load_value < r.alignment->stages[b].stage.load_value;
  });
  std::vector<LoadPoint> points;
  std::optional<std::size_t> knee;
  for (const std::size_t i : order) {
    const auto& s = r.alignment->stages[i];
    if (s.events == 0) continue;
    if (sweep.knee == i) knee = points.size();
    points.push_back(load_point(s));
  }
  if (r.alignment->outside_events > 0)
    r.alignment_note = fmt::format("{} of {} events fall outside every stage (warm-up, between stages or after)",
                                   r.alignment->outside_events, t.events.size());
  if (points.empty()) {
    r.alignment_note = fmt::format(
        "no kernel event falls inside any stage of {}: wrong trace, or wrong "
        "--trace-offset-ns/--trace-start-unix (offset used: {} ns)",
        f.results_path, *offset);
    points.push_back(whole_trace_point(r.categories));
  }
  r.findings = diagnose(points, knee);
}

int run_kernels(const KernelsFlags& f) {
  const KernelTrace t = load_trace(f.trace_path);
  if (t.events.empty()) throw UserError(f.trace_path + ": no kernel events in the trace");
  for (const auto& w : t.warnings) std::fprintf(stderr, "servebench kernels: warning: %s\n", w.c_str());
  report::KernelReport r;
  r.trace = &t;
  r.top = f.top;
  r.by_category = f.by == "category";
  r.ranks = rank_kernels(t, {name_key(f.by), true});
  r.categories = category_totals(r.ranks);
  if (!f.results_path.empty())
    add_alignment(f, t, r);
  else
    r.findings = diagnose({whole_trace_point(r.categories)}, std::nullopt);
  const std::string out = f.format == "json" ? report::report_json(r).dump(2) + "\n" : report::report_text(r);
  std::fputs(out.c_str(), stdout);
  return to_int(ExitCode::ok);
}

}  // namespace

int kernels_cmd(int argc, char** argv) {
  CLI::App app{
      "Rank and categorise GPU kernels of a rocprof/rocprofv3/nsys/PyTorch trace; with --results, "
      "line them up with the load stages of a sweep and diagnose"};
  app.name("servebench kernels");
  KernelsFlags f;
  app.add_option(
         "TRACE", f.trace_path,
         "trace file or folder (rocprof v1 results.csv/json, rocprofv3, nsys cuda_gpu_trace CSV, *.pt.trace.json)")
      ->required();
  app.add_option("--results", f.results_path, "sweep document from 'servebench run --output-json'");
  app.add_option("--top", f.top, "kernels to show (default 10)")->check(CLI::PositiveNumber);
  app.add_option("--by", f.by, "group kernels by name, base (default: name without templates/arguments) or category")
      ->check(CLI::IsMember({"name", "base", "category"}));
  app.add_option("--format", f.format, "table (default) or json")->check(CLI::IsMember({"table", "json"}));
  auto* off = app.add_option("--trace-offset-ns", f.trace_offset_ns, "Unix ns = trace ns + this (rocprof/nsys traces)");
  app.add_option("--trace-start-unix", f.trace_start_unix_s, "wall-clock time (Unix s) of the trace's first event")
      ->excludes(off);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? to_int(ExitCode::ok) : to_int(ExitCode::config_error);
  }
  return run_kernels(f);
}

}  // namespace sb::cli
