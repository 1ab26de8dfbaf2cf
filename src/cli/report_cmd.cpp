// servebench report RESULTS.json [MORE.json ...]: knee, regions, capacity answers; terminal text,
// JSON (--format json) and a self-contained HTML file (--out).
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
#include "report/analysis_console.hpp"
#include "report/html_view.hpp"
#include "cli/commands.hpp"
#include "core/error.hpp"
#include "core/exit_codes.hpp"
#include "report/html_report.hpp"
#include "results/result_reader.hpp"

namespace sb::cli {
namespace {

struct ReportFlags {
  std::vector<std::string> files;
  std::string out_html;
  std::string format = "text";
  std::optional<double> target_qps;
  std::string slo;
  double saturation_elasticity = 0.2;
};

void write_text_file(const std::string& path, const std::string& text, const char* flag) {
  const int err = report::try_write_file_atomic(path, text);
  if (err != 0)
    throw UserError(std::string(flag) + " " + path + ": cannot write file: " + std::strerror(err), ExitCode::write_failed);
}

int run_report(const ReportFlags& f) {
  analyze::AnalyzeOptions opt;
  opt.knee.saturation_elasticity = f.saturation_elasticity;
  opt.target_qps = f.target_qps;
  if (!f.slo.empty()) opt.slos = analyze::parse_slos(f.slo, "--slo");
  const auto runs = results::read_runs(f.files);
  const auto analyses = analyze::analyze_runs(runs, opt);
  if (f.format == "json") {
    std::fputs((report::report_json(runs, analyses).dump(2) + "\n").c_str(), stdout);
  } else {
    for (std::size_t i = 0; i < runs.size(); ++i)
      std::fputs((report::console_report(runs[i], analyses[i]) + "\n").c_str(), stdout);
  }
  if (!f.out_html.empty()) {
    write_text_file(f.out_html, report::render(report::html_document(runs, analyses)), "--out");
    std::fprintf(stderr, "wrote %s\n", f.out_html.c_str());
  }
  return to_int(ExitCode::ok);
}

}  // namespace

int report_cmd(int argc, char** argv) {
  CLI::App app{"Capacity analysis of servebench sweep documents or vLLM result files: knee, regions, "
               "capacity planning, HTML report"};
  app.name("servebench report");
  ReportFlags f;
  app.add_option("results", f.files, "sweep JSON documents, vLLM result JSON files, or folders of vLLM files")->required()
      ->check(CLI::ExistingPath);
  app.add_option("--out", f.out_html, "write a self-contained HTML report to this file");
  app.add_option("--format", f.format, "terminal output: text or json")->check(CLI::IsMember({"text", "json"}));
  app.add_option("--target-qps", f.target_qps, "replicas needed for this many requests/s")
      ->check(CLI::Range(1e-9, 1e12));
  app.add_option("--slo", f.slo, "SLOs, e.g. ttft_p99_ms=500,tpot_p50_ms=50: highest level meeting all");
  app.add_option("--saturation-elasticity", f.saturation_elasticity,
                 "knee: later stages gaining less than this dlog(throughput)/dlog(load) are saturated (default 0.2)")
      ->check(CLI::Range(0.01, 0.99));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? to_int(ExitCode::ok) : to_int(ExitCode::config_error);
  }
  return run_report(f);
}

}  // namespace sb::cli
