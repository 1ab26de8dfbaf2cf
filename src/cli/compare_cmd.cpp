// servebench compare BASELINE.json TUNED.json: per-stage deltas with significance, knee and capacity
// shift, equivalence checks, hints; --fail-if rules give CI an exit code (gate_failed).
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "analyze/analysis.hpp"
#include "report/analysis_json.hpp"
#include "report/atomic_file.hpp"
#include "analyze/compare.hpp"
#include "report/analysis_console.hpp"
#include "report/analysis_text.hpp"
#include "analyze/gate.hpp"
#include "report/html_view.hpp"
#include "cli/commands.hpp"
#include "core/error.hpp"
#include "core/exit_codes.hpp"
#include "report/html_report.hpp"
#include "results/result_reader.hpp"

namespace sb::cli {
namespace {

struct CompareFlags {
  std::string baseline, tuned;
  std::string out_html;
  std::string format = "text";
  std::vector<std::string> fail_if;
  std::vector<std::string> metrics;
  int resamples = 1000;
};

results::Run read_one(const std::string& path, const char* role) {
  auto runs = results::read_runs({path});
  if (runs.size() != 1) throw UserError(std::string(role) + " " + path + ": expected exactly one run");
  return std::move(runs.front());
}

int run_compare(const CompareFlags& f) {
  report::GateResult gate;
  for (const auto& r : f.fail_if) gate.rules.push_back(analyze::parse_gate_rule(r));
  std::vector<results::Run> runs{read_one(f.baseline, "BASELINE"), read_one(f.tuned, "TUNED")};
  const auto analyses = analyze::analyze_runs(runs, {});
  std::vector<std::string> metrics = f.metrics.empty() ? analyze::default_compare_metrics() : f.metrics;
  for (const auto& r : gate.rules)
    if (std::find(metrics.begin(), metrics.end(), r.metric) == metrics.end()) metrics.push_back(r.metric);
  analyze::CompareInput in{runs[0], runs[1], analyses[0].curve, analyses[1].curve, metrics, {}};
  in.bootstrap.resamples = f.resamples;
  const auto cmp = analyze::compare_runs(in);
  gate.violations = analyze::evaluate_gate(gate.rules, cmp);
  if (f.format == "json")
    std::fputs((report::compare_json(runs[0], runs[1], cmp, gate).dump(2) + "\n").c_str(), stdout);
  else
    std::fputs(report::console_compare(runs[0], runs[1], cmp, gate).c_str(), stdout);
  if (!f.out_html.empty()) {
    const int err =
        report::try_write_file_atomic(f.out_html, report::render(report::html_compare_document(runs, analyses, cmp, gate)));
    if (err != 0)
      throw UserError("--out " + f.out_html + ": cannot write file: " + std::strerror(err), ExitCode::write_failed);
  }
  // The rule as the user typed it, so CI logs show which --fail-if tripped and where.
  for (const auto& v : gate.violations)
    std::fprintf(stderr, "servebench compare: --fail-if \"%s\" violated: %s\n", v.rule.c_str(),
                 report::violation_text(v).c_str());
  return gate.violations.empty() ? to_int(ExitCode::ok) : to_int(ExitCode::gate_failed);
}

}  // namespace

int compare_cmd(int argc, char** argv) {
  CLI::App app{"Compare a baseline run with a tuned run: deltas, significance, knee shift, CI gate"};
  app.name("servebench compare");
  CompareFlags f;
  app.add_option("baseline", f.baseline, "baseline sweep JSON, or a vLLM result file or folder of them")->required()
      ->check(CLI::ExistingPath);
  app.add_option("tuned", f.tuned, "tuned sweep JSON, or a vLLM result file or folder of them")->required()
      ->check(CLI::ExistingPath);
  app.add_option("--fail-if", f.fail_if,
                 "exit 5 when violated: METRIC[@LOAD]:+N% (rose by more) or METRIC[@LOAD]:-N% (fell by more)");
  app.add_option("--metrics", f.metrics, "metrics to compare (default: throughputs, TTFT p50/p99, TPOT p50, "
                                         "ITL p99, E2EL p99)")->delimiter(',');
  app.add_option("--format", f.format, "terminal output: text or json")->check(CLI::IsMember({"text", "json"}));
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
