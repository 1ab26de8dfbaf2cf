// `servebench predict`: the simulator's engine flags + `run`'s workload and output flags -> the
// staircase played in virtual time (predict/staircase_predict.hpp), no HTTP. With --grid, one
// prediction per combination of engine knobs and a comparison table (docs/predict.md).
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "analyze/analysis.hpp"
#include "analyze/capacity.hpp"
#include "cli/commands.hpp"
#include "cli/run_flags.hpp"
#include "cli/run_options.hpp"
#include "cli/sim_engine_flags.hpp"
#include "core/error.hpp"
#include "core/exit_codes.hpp"
#include "predict/engine_grid.hpp"
#include "predict/prediction_source.hpp"
#include "predict/staircase_predict.hpp"
#include "report/analysis_console.hpp"
#include "report/predict_grid_table.hpp"
#include "sim/presets.hpp"

namespace sb::cli {
namespace {

struct PredictFlags {
  EngineFlags engine;
  std::vector<std::string> grid;
  std::optional<double> target_qps;
  std::string slo;
  std::vector<std::string> run_args;  // everything else: run's flags
};

// Splits argv into predict's own flags and the rest, which run's parser reads. Returns false for --help.
bool parse_predict_flags(int argc, char** argv, PredictFlags& f) {
  CLI::App app{"servebench predict: the staircase `run` would send, played through the simulated engine in "
               "virtual time (no server). Takes the engine flags below and every workload, load and output "
               "flag of `servebench run` (see servebench run --help)",
               "servebench predict"};
  app.allow_extras();
  add_engine_flags(app, f.engine);
  app.add_option_function<int>("--tp", [&f](int tp) { f.engine.knobs.set("engine.tensor_parallel_size", tp); },
                               "Alias of --tensor-parallel-size")
      ->check(CLI::Range(1, 1024));
  app.add_option("--grid", f.grid, "KEY=V1,V2,...: one prediction per combination (repeatable), e.g. max_num_seqs=64,128");
  app.add_option("--target-qps", f.target_qps, "replicas needed for this many requests/s")->check(CLI::Range(1e-9, 1e12));
  app.add_option("--slo", f.slo, "SLOs, e.g. ttft_p99_ms=500,tpot_p50_ms=50: highest level meeting all");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return false;
  } catch (const CLI::ParseError& e) {
    throw UserError(e.what(), ExitCode::config_error);
  }
  f.run_args = app.remaining();
  if (!f.engine.kernel_trace.empty()) throw UserError("--kernel-trace: predict writes no kernel trace (use servebench sim)");
  return true;
}

// unsupported_in_prediction's problems under the flag that set each field.
void refuse_unsupported(const pipeline::RunConfig& run) {
  const Problems problems = predict::unsupported_in_prediction(run);
  if (problems.empty()) return;
  const Problem& p = problems.front();
  const std::vector<const FlagSpec*> flags = flags_for_field(p.field);
  const std::string where = p.field == "load.search" ? "--concurrency/--request-rate auto"
                            : flags.empty()           ? p.field
                                                      : "--" + std::string(flags.front()->name);
  throw UserError(fmt::format("{}: {}", where, p.message), ExitCode::config_error);
}

void print_answers(const PredictFlags& f, const pipeline::AnalysedRun& a) {
  if (!f.target_qps && f.slo.empty()) {
    pipeline::print_knee(stdout, a);
    return;
  }
  analyze::AnalyzeOptions opt;
  opt.target_qps = f.target_qps;
  if (!f.slo.empty()) opt.slos = analyze::parse_slos(f.slo, "--slo");
  std::fputs(("\n" + report::console_report(a.run, analyze::analyze_run(a.run, opt)) + "\n").c_str(), stdout);
}

report::GridRow grid_row(const predict::GridPoint& point, const predict::PredictResult& r) {
  report::GridRow row;
  row.point = point;
  for (const StageSummary& s : r.stages) row.peak_output_tps = std::max(row.peak_output_tps, s.output_throughput);
  if (!r.analysis || !r.analysis->analysis.curve.knee) return row;
  const results::Stage& k = r.analysis->run.stages[*r.analysis->analysis.curve.knee];
  row.knee_load = k.load_value;
  row.knee_rps = k.request_throughput;
  row.knee_ttft_p50_ms = k.percentile(results::Metric::ttft, 50);
  row.knee_tpot_p50_ms = k.percentile(results::Metric::tpot, 50);
  return row;
}

int run_grid(const PredictFlags& f, predict::PredictConfig cfg) {
  if (!cfg.run.output_json.empty() || !cfg.run.requests_jsonl.empty() || !cfg.run.csv.empty() || cfg.run.save_result)
    throw UserError("--grid: writes no result files; predict one setting at a time for its sweep document",
                    ExitCode::config_error);
  std::vector<predict::GridAxis> axes;
  for (const std::string& g : f.grid) axes.push_back(predict::parse_grid_axis(g));
  const sim::EngineConfig base = cfg.engine;
  std::vector<report::GridRow> rows;
  for (const predict::GridPoint& point : predict::grid_points(axes)) {
    cfg.engine = predict::apply_grid_point(base, point);
    try {
      rows.push_back(grid_row(point, predict::predict_staircase(cfg, {stdout, stderr, true})));
    } catch (const UserError& e) {
      report::GridRow row;
      row.point = point;
      row.error = e.what();
      rows.push_back(std::move(row));
    }
  }
  const LoadMode mode = cfg.run.load.concurrency.empty() ? LoadMode::request_rate : LoadMode::concurrency;
  std::fputs(report::format_grid_table(mode, rows).c_str(), stdout);
  return to_int(ExitCode::ok);
}

}  // namespace

int predict_cmd(int argc, char** argv) {
  PredictFlags f;
  if (!parse_predict_flags(argc, argv, f)) return to_int(ExitCode::ok);
  if (f.engine.list_presets) {
    std::fputs(sim::format_presets().c_str(), stdout);
    return to_int(ExitCode::ok);
  }
  ParseInput in;
  in.args = f.run_args;
  std::optional<RunConfig> run = parse_run_options(in);
  if (!run) return to_int(ExitCode::ok);
  refuse_unsupported(*run);
  predict::PredictConfig cfg;
  cfg.run = std::move(*run);
  cfg.engine = resolve_engine_config(f.engine);
  cfg.source_json = predict::prediction_source_json(
      {cfg.engine.hardware.model.name, cfg.engine.hardware.gpu.name, f.engine.engine_config, &cfg.engine});
  if (!f.grid.empty()) return run_grid(f, std::move(cfg));
  const predict::PredictResult result = predict::predict_staircase(cfg, {});
  if (result.analysis) print_answers(f, *result.analysis);
  return to_int(result.code);
}

}  // namespace sb::cli
