#include "orchestrate/tune_outputs.hpp"

#include <cstring>
#include <system_error>

#include "analyze/tune_analysis.hpp"
#include "core/error.hpp"
#include "report/atomic_file.hpp"
#include "report/html_report.hpp"
#include "report/tune_csv.hpp"
#include "report/tune_html.hpp"
#include "report/tune_json.hpp"
#include "report/tune_text.hpp"
#include "results/result_reader.hpp"
#include "trace/load.hpp"

namespace sb::orchestrate {
namespace {

// A sweep that cannot be read makes its configuration a failed one, with the reader's line.
analyze::TuneConfigInput read_config(const TunedConfig& c, std::FILE* err) {
  analyze::TuneConfigInput in{c.name, c.params, std::nullopt, {}, c.failure};
  if (!c.failure.empty()) return in;
  if (c.sweep_json.empty()) {
    in.failure = report::tune_missing_sweep_text();
    return in;
  }
  try {
    std::vector<results::Run> runs = results::read_runs({c.sweep_json.string()});
    // A --repeats sweep reads as one run per pass; the first stands for the configuration (as compare does).
    in.run = std::move(runs.front());
    in.run->label = c.name;
  } catch (const UserError& e) {
    in.failure = e.what();
    std::fputs(report::tune_warning_text(c.name, e.what()).c_str(), err);
    return in;
  }
  for (const auto& path : c.kernel_traces) {
    try {
      in.traces.push_back(trace::load_trace(path.string()));
    } catch (const UserError& e) {
      std::fputs(report::tune_warning_text(c.name, e.what()).c_str(), err);
    }
  }
  return in;
}

bool write_output(const std::filesystem::path& path, const std::string& text, std::FILE* err) {
  const int e = report::try_write_file_atomic(path.string(), text);
  if (e == 0) return true;
  std::fputs(report::tune_write_error_text(path.string(), std::strerror(e)).c_str(), err);
  return false;
}

}  // namespace

ExitCode write_tune_outputs(const TuneOutputsRequest& req, std::FILE* out, std::FILE* err) {
  if (req.configs.empty()) {
    std::fputs(report::tune_no_configs_text().c_str(), err);
    return ExitCode::config_error;
  }
  analyze::TuneInput in;
  in.slos = req.slos;
  in.gpus_per_config = req.gpus_per_config > 0 ? req.gpus_per_config : 1;
  std::vector<std::string> sweeps;
  for (const auto& c : req.configs) {
    in.configs.push_back(read_config(c, err));
    sweeps.push_back(in.configs.back().run ? c.sweep_json.string() : "");
  }
  const analyze::TuneAnalysis a = analyze::analyze_tune(in);
  std::fputs(report::tune_console(in, a).c_str(), out);
  std::error_code ec;
  std::filesystem::create_directories(req.output_dir, ec);
  if (ec) {
    std::fputs(report::tune_write_error_text(req.output_dir.string(), ec.message()).c_str(), err);
    return ExitCode::write_failed;
  }
  const bool ok = write_output(req.output_dir / kTuneSummaryJson, report::tune_summary_json(in, a, sweeps).dump(2) + "\n", err) &&
                  write_output(req.output_dir / kTuneSummaryCsv, report::tune_summary_csv(in, a), err) &&
                  write_output(req.output_dir / kTuneReportHtml, report::render(report::tune_html_document(in, a)), err);
  return ok ? ExitCode::ok : ExitCode::write_failed;
}

}  // namespace sb::orchestrate
