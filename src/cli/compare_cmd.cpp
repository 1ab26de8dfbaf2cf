// servebench compare BASELINE.json TUNED.json: a headline at the knee, per-load deltas with
// significance, knee and capacity shift, equivalence checks, hints; --fail-if rules give CI an exit
// code (gate_failed) and trip only on significant changes past their limit and floor (docs/compare.md).
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "analyze/analysis.hpp"
#include "report/analysis_json.hpp"
#include "report/atomic_file.hpp"
#include "analyze/compare.hpp"
#include "analyze/gate.hpp"
#include "cli/commands.hpp"
#include "core/error.hpp"
#include "core/exit_codes.hpp"
#include "report/analysis_json.hpp"
#include "report/compare_gate_text.hpp"
#include "report/compare_table.hpp"
#include "report/html_report.hpp"
#include "report/html_view.hpp"
#include "results/result_reader.hpp"
#include "trace/load.hpp"
#include "trace/rank.hpp"

namespace sb::cli {
namespace {

struct CompareFlags {
  std::string baseline, tuned;
  std::string out_html;
  std::string out_json;
  std::string format = "text";
  std::vector<std::string> fail_if;
  std::vector<std::string> metrics;
  std::vector<std::string> traces;  // BASELINE_TRACE TUNED_TRACE
  std::optional<double> at_load;
  bool force = false;
  int resamples = 1000;
};

results::Run read_one(const std::string& path, const char* role) {
  auto runs = results::read_runs({path});
  // A --repeats sweep reads as one run per pass: the first is compared (as the run's own analysis).
  const bool passes = runs.size() > 1 && std::all_of(runs.begin(), runs.end(), [&](const results::Run& r) {
    return r.source == runs.front().source;
  });
  if (passes) {
    std::fprintf(stderr, "servebench compare: %s %s holds %zu repeats of its staircase: comparing the first\n", role,
                 path.c_str(), runs.size());
    runs.resize(1);
  }
  if (runs.size() != 1) throw UserError(std::string(role) + " " + path + ": expected exactly one run");
  return std::move(runs.front());
}

// A trace's kernels by total time, as compare needs them (kernels only: copies are not tuned).
std::vector<analyze::KernelSummary> kernel_summaries(const std::string& path) {
  const trace::KernelTrace t = trace::load_trace(path);
  if (t.events.empty()) throw UserError("--traces " + path + ": no kernel events in the trace");
  std::vector<analyze::KernelSummary> out;
  for (const auto& r : trace::rank_kernels(t, {trace::NameKey::base, false}))
    out.push_back({r.name, r.calls, r.avg_ns, r.stddev_ns, static_cast<double>(r.total_ns)});
  return out;
}

// Atomic (temp + fsync + rename): a failed write leaves any earlier file as it was, and exits 6.
void write_file(const std::string& flag, const std::string& path, const std::string& text) {
  const int err = report::try_write_file_atomic(path, text);
  if (err != 0) throw UserError(flag + " " + path + ": cannot write file: " + std::strerror(err), ExitCode::write_failed);
}

int run_compare(const CompareFlags& f) {
  report::GateResult gate;
  for (const auto& r : f.fail_if) gate.rules.push_back(analyze::parse_gate_rule(r));
  std::vector<results::Run> runs{read_one(f.baseline, "BASELINE"), read_one(f.tuned, "TUNED")};
  // A concurrency of 4 and a rate of 4 req/s are different experiments; matching them by value
  // would print deltas that mean nothing.
  if (runs[0].load_mode != runs[1].load_mode && !f.force)
    throw UserError(report::load_mode_refusal_text(runs[0], runs[1]));
  std::vector<analyze::KernelSummary> base_kernels, tuned_kernels;
  if (!f.traces.empty()) base_kernels = kernel_summaries(f.traces[0]), tuned_kernels = kernel_summaries(f.traces[1]);
  const auto analyses = analyze::analyze_runs(runs, {});
  std::vector<std::string> metrics = f.metrics.empty() ? analyze::default_compare_metrics() : f.metrics;
  for (const auto& r : gate.rules)
    if (std::find(metrics.begin(), metrics.end(), r.metric) == metrics.end()) metrics.push_back(r.metric);
  analyze::CompareInput in{runs[0], runs[1], analyses[0].curve, analyses[1].curve, metrics, {}};
  in.bootstrap.resamples = f.resamples;
  in.headline_load = f.at_load;
  if (!f.traces.empty()) in.baseline_kernels = &base_kernels, in.tuned_kernels = &tuned_kernels;
  const auto cmp = analyze::compare_runs(in);
  gate.verdicts = analyze::judge_gate(gate.rules, cmp);
  for (const auto& v : gate.verdicts)
    if (v.failed()) gate.violations.push_back(v);
  const auto json = report::compare_json(runs[0], runs[1], cmp, gate);
  if (f.format == "json")
    std::fputs((json.dump(2) + "\n").c_str(), stdout);
  else
    std::fputs(report::console_compare(runs[0], runs[1], cmp, gate).c_str(), stdout);
  if (!f.out_json.empty()) write_file("--output-json", f.out_json, json.dump(2) + "\n");
  if (!f.out_html.empty())
    write_file("--out", f.out_html, report::render(report::html_compare_document(runs, analyses, cmp, gate)));
  // The rule as the user typed it, so CI logs show which --fail-if tripped and where.
  for (const auto& v : gate.violations)
    std::fprintf(stderr, "servebench compare: --fail-if \"%s\" tripped at %s: %s\n", v.rule.c_str(),
                 report::stage_load_name(cmp.load_mode, v.load_value).c_str(),
                 report::gate_verdict_text(v).c_str());
  return gate.violations.empty() ? to_int(ExitCode::ok) : to_int(ExitCode::gate_failed);
}

}  // namespace

int compare_cmd(int argc, char** argv) {
  CLI::App app{"Compare a baseline run with a tuned run: headline, deltas, significance, knee shift, CI gate"};
  app.name("servebench compare");
  CompareFlags f;
  app.add_option("baseline", f.baseline, "baseline sweep JSON, or a vLLM result file or folder of them")->required()
      ->check(CLI::ExistingPath);
  app.add_option("tuned", f.tuned, "tuned sweep JSON, or a vLLM result file or folder of them")->required()
      ->check(CLI::ExistingPath);
  app.add_option("--fail-if", f.fail_if,
                 "exit 5 on a significant change past the limit (and the floor, in the metric's unit): "
                 "METRIC[@LOAD]:+N%[:+X{ms,req/s,tok/s}] (rose by more) or METRIC[@LOAD]:-N%[:-X...] (fell by more)");
  app.add_option("--metrics", f.metrics, "metrics to compare (default: throughputs, TTFT p50/p99, TPOT p50, "
                                         "ITL p99, E2EL p99)")->delimiter(',');
  app.add_option("--at", f.at_load, "read the headline at this load (default: the baseline's knee)");
  app.add_flag("--force", f.force, "compare runs of different load modes (concurrency vs rate) by load value");
  app.add_option("--traces", f.traces, "BASELINE_TRACE TUNED_TRACE: kernel traces; the headline adds the top "
                                       "kernels' mean times")->expected(2)->check(CLI::ExistingPath);
  app.add_option("--format", f.format, "terminal output: text or json")->check(CLI::IsMember({"text", "json"}));
  app.add_option("--output-json", f.out_json, "also write the comparison JSON (as --format json prints) here");
  app.add_option("--out", f.out_html, "write the HTML report with both runs overlaid");
  app.add_option("--bootstrap-resamples", f.resamples, "bootstrap resamples for significance")
      ->check(CLI::Range(100, 100000));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? to_int(ExitCode::ok) : to_int(ExitCode::config_error);
  }
  return run_compare(f);
}

}  // namespace sb::cli
