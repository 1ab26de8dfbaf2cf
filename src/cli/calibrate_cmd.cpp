// `servebench calibrate SWEEP.json --model-preset P --gpu-preset G -o fitted.toml`: the measured
// staircase and its per-request JSONL -> the cost parameters that replay it best
// (predict/calibrate.hpp), the fit and held-out errors per stage, and an engine TOML that
// `servebench sim --config` and `servebench predict --engine-config` load (docs/predict.md). With
// --kernels TRACE..., the GPU busy time the traces show per stage is one more target of the fit.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "cli/sim_engine_flags.hpp"
#include "cli/trace_placing.hpp"
#include "core/error.hpp"
#include "core/exit_codes.hpp"
#include "predict/calibrate.hpp"
#include "predict/fitted_toml.hpp"
#include "predict/kernel_targets.hpp"
#include "predict/measured_run.hpp"
#include "report/atomic_file.hpp"
#include "report/calibrate_text.hpp"
#include "results/result_reader.hpp"
#include "trace/align.hpp"
#include "trace/load.hpp"

namespace sb::cli {
namespace {

namespace fs = std::filesystem;

struct CalibrateFlags {
  EngineFlags engine;
  std::string sweep;
  std::string requests_jsonl;
  std::vector<std::string> kernels;
  std::optional<std::int64_t> trace_offset_ns;
  std::optional<double> trace_start_unix_s;
  std::vector<double> holdout;
  std::string output;
  int max_evaluations = 600;
};

std::string read_text(const std::string& path, const char* what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UserError(fmt::format("{} {}: cannot open: {}", what, path, std::strerror(errno)));
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// --requests-jsonl, else the sweep's own requests_file (relative to the sweep's folder).
std::string requests_path(const CalibrateFlags& f, const std::string& sweep_text) {
  if (!f.requests_jsonl.empty()) return f.requests_jsonl;
  const std::optional<std::string> rel = predict::sweep_requests_file(sweep_text);
  if (!rel)
    throw UserError(fmt::format("{}: names no per-request file (run with --requests-jsonl, or give calibrate "
                                "--requests-jsonl F)", f.sweep), ExitCode::config_error);
  const fs::path p(*rel);
  return p.is_absolute() ? p.string() : (fs::path(f.sweep).parent_path() / p).string();
}

// --holdout values are loads (concurrency or rate) of the sweep's stages.
std::vector<int> holdout_stages(const CalibrateFlags& f, const std::vector<predict::MeasuredStage>& stages) {
  if (f.holdout.empty()) return predict::default_holdout(stages);
  std::vector<int> out;
  for (const double load : f.holdout) {
    const auto it = std::find_if(stages.begin(), stages.end(), [&](const auto& s) { return s.load_value == load; });
    if (it == stages.end()) throw UserError(fmt::format("--holdout {:g}: no stage of {} has that load", load, f.sweep), ExitCode::config_error);
    out.push_back(it->stage_index);
  }
  return out;
}

void print_result(const results::Run& run, const predict::CalibrateResult& r) {
  std::vector<report::CalibratedParam> params;
  for (const auto& p : r.params) params.push_back({p.name, p.start, p.fitted, p.at_bound});
  std::vector<report::CalibratedStage> stages;
  for (const auto& s : r.stages)
    stages.push_back({s.load_value, s.held_out, s.measured.output_throughput, s.predicted.output_throughput,
                      s.measured.ttft_p50_ms, s.predicted.ttft_p50_ms, s.measured.tpot_p50_ms, s.predicted.tpot_p50_ms,
                      s.measured.gpu_ms_per_token, s.predicted.gpu_ms_per_token, s.measured.step_p50_ms,
                      s.predicted.step_p50_ms});
  std::fputs(report::format_calibration(run.load_mode, params, stages, r.evaluations).c_str(), stdout);
}

// A sweep measured against `sim --time-scale K` is in the modelled GPU's time already (its
// environment.time_factor is K): replaying it at K again would fit a GPU K times too fast. One made
// with --wall-clock-times is replayed at the K the server advertised, unless --time-scale says.
void reconcile_time_scale(const results::Run& run, CalibrateFlags& f) {
  const std::optional<double> scale = f.engine.knobs.get<double>("engine.time_scale");
  const bool given = scale && *scale != 1;
  if (run.time_factor != 1 && given)
    throw UserError(fmt::format("--time-scale: {} is already in the modelled GPU's time (environment.time_factor {:g}); "
                                "drop --time-scale (it is for sweeps made with --wall-clock-times)",
                                f.sweep, run.time_factor),
                    ExitCode::config_error);
  if (run.time_factor == 1 && run.server_time_scale != 1 && !given) {
    f.engine.knobs.set("engine.time_scale", run.server_time_scale);
    std::fprintf(stderr, "note: %s was measured on the wall clock against a simulator %gx faster than real time: "
                         "replayed at --time-scale %g\n", f.sweep.c_str(), run.server_time_scale, run.server_time_scale);
  }
}

// --kernels: each trace read, placed on the sweep's stages as `kernels --results` places it
// (cli/trace_placing.hpp) and aligned with them; the stages' GPU busy time per output token become
// targets of the fit (predict/kernel_targets.hpp).
void add_kernel_targets(const CalibrateFlags& f, const results::Run& run, int tensor_parallel,
                        std::vector<predict::MeasuredStage>& stages) {
  const trace::SweepStages windows = trace::sweep_stages(run);
  std::vector<trace::Alignment> alignments;
  for (const std::string& path : f.kernels) {
    const trace::KernelTrace t = trace::load_trace(path);
    if (t.events.empty()) throw UserError(fmt::format("--kernels {}: no kernel events in the trace", path), ExitCode::config_error);
    for (const auto& w : t.warnings) std::fprintf(stderr, "servebench calibrate: warning: %s\n", w.c_str());
    const trace::Placement placed =
        place_trace_or_refuse(t, windows, {f.trace_offset_ns, f.trace_start_unix_s}, path, f.sweep);
    trace::Alignment a = trace::align_to_stages(t, windows.stages, placed.offset->ns, trace::GroupBy::category);
    if (a.outside_events == static_cast<std::int64_t>(t.events.size()))
      throw UserError(fmt::format("--kernels {}: no kernel event falls inside any stage of {}: a trace of another "
                                  "run, or a wrong --trace-offset-ns/--trace-start-unix (offset used: {} ns)",
                                  path, f.sweep, placed.offset->ns),
                      ExitCode::config_error);
    if (a.devices > tensor_parallel)
      throw UserError(fmt::format("--kernels {}: the trace holds {} devices, the server ran --tensor-parallel-size {} "
                                  "(give --tp)", path, a.devices, tensor_parallel),
                      ExitCode::config_error);
    alignments.push_back(std::move(a));
    predict::apply_step_periods(predict::step_periods(t, placed.offset->ns, windows.stages), run.time_factor, stages);
  }
  predict::apply_kernel_targets(predict::kernel_targets(alignments, stages, run.time_factor, tensor_parallel), stages);
}

int run_calibrate(CalibrateFlags f) {
  const std::string sweep_text = read_text(f.sweep, "sweep");
  const results::Run run = results::parse_sweep(sweep_text, f.sweep);
  reconcile_time_scale(run, f);
  const std::string jsonl = requests_path(f, sweep_text);
  const std::vector<predict::MeasuredRequest> requests =
      predict::parse_measured_requests(read_text(jsonl, "--requests-jsonl"), jsonl);
  predict::CalibrateConfig cfg;
  cfg.start = resolve_engine_config(f.engine);
  cfg.stages = predict::measured_stages(run, requests);
  if (cfg.stages.empty()) throw UserError(fmt::format("{}: no stage with successful requests in {}", f.sweep, jsonl));
  if (!f.kernels.empty()) add_kernel_targets(f, run, cfg.start.hardware.tensor_parallel, cfg.stages);
  cfg.holdout = holdout_stages(f, cfg.stages);
  cfg.max_evaluations = f.max_evaluations;
  const predict::CalibrateResult result = predict::calibrate(cfg);
  print_result(run, result);
  predict::FittedTomlInput out{*f.engine.knobs.get<std::string>("engine.model_preset"),
                                *f.engine.knobs.get<std::string>("engine.gpu_preset"), f.sweep, &result, f.kernels};
  // The fitted server runs at its real speed: a --time-scale of the measured sim is not kept.
  const int err = report::try_write_file_atomic(f.output, predict::fitted_toml(out));
  if (err != 0) throw UserError(fmt::format("-o {}: cannot write: {}", f.output, std::strerror(err)), ExitCode::write_failed);
  std::fprintf(stderr, "wrote %s (servebench sim --config %s, servebench predict --engine-config %s)\n", f.output.c_str(),
               f.output.c_str(), f.output.c_str());
  return to_int(ExitCode::ok);
}

}  // namespace

int calibrate_cmd(int argc, char** argv) {
  CLI::App app{"servebench calibrate: fit the simulator's cost parameters to a measured staircase by replaying its "
               "requests in virtual time; writes an engine TOML for sim --config / predict --engine-config",
               "servebench calibrate"};
  CalibrateFlags f;
  app.add_option("sweep", f.sweep, "sweep document of the measured run (servebench run --output-json)")
      ->required()->check(CLI::ExistingFile);
  add_engine_flags(app, f.engine);
  app.add_option_function<int>("--tp", [&f](int tp) { f.engine.knobs.set("engine.tensor_parallel_size", tp); },
                               "Alias of --tensor-parallel-size")
      ->check(CLI::Range(1, 1024));
  app.add_option("--requests-jsonl", f.requests_jsonl, "per-request JSONL (default: the sweep's requests_file)")
      ->check(CLI::ExistingFile);
  app.add_option("--kernels", f.kernels,
                 "kernel traces of the run (files or folders; rocprof, rocprofv3, nsys, torch): the GPU's busy time "
                 "per stage becomes a target of the fit");
  auto* off = app.add_option("--trace-offset-ns", f.trace_offset_ns,
                             "Unix ns = trace ns + this, for --kernels traces no sidecar or run clock places");
  app.add_option("--trace-start-unix", f.trace_start_unix_s, "wall-clock time (Unix s) of each --kernels trace's first event")
      ->excludes(off);
  app.add_option("--holdout", f.holdout, "loads (concurrency or rate) of stages left out of the fit (default: the last)");
  app.add_option("-o,--output", f.output, "engine TOML to write")->required();
  app.add_option("--max-evaluations", f.max_evaluations, "most replays of the fitted stages (default 600)")
      ->check(CLI::Range(10, 100000));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : to_int(ExitCode::config_error);
  }
  if (!f.engine.knobs.get<std::string>("engine.model_preset") || !f.engine.knobs.get<std::string>("engine.gpu_preset"))
    throw UserError("--model-preset and --gpu-preset are required: the fit starts from their numbers", ExitCode::config_error);
  return run_calibrate(f);
}

}  // namespace sb::cli
