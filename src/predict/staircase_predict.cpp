#include "predict/staircase_predict.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/error.hpp"
#include "dataset/dataset.hpp"
#include "load/schedule.hpp"
#include "metrics/summarize.hpp"
#include "pipeline/run_config_json.hpp"
#include "pipeline/run_outputs.hpp"
#include "pipeline/run_prepare.hpp"
#include "pipeline/stage_bounds.hpp"
#include "pipeline/stage_workload.hpp"
#include "predict/virtual_client.hpp"
#include "report/console_summary.hpp"
#include "report/staircase_table.hpp"
#include "tokenizer/tokenizer.hpp"

namespace sb::predict {
namespace {

void print_text(std::FILE* out, const std::string& text) {
  if (std::ferror(out)) return;
  std::fputs(text.c_str(), out);
  std::fflush(out);
}

// What run's prepare_run gives its stages, without a server: the dataset loaded with --tokenizer
// (else with none: lengths as the dataset states them), the bodies later stages are built like,
// the staircase, and the context the reporters read.
pipeline::Prepared prepare_offline(const PredictConfig& cfg) {
  const pipeline::RunConfig& run = cfg.run;
  pipeline::Prepared p;
  DatasetConfig d = run.dataset;
  const std::size_t listed = run.load.concurrency.empty() ? run.load.request_rates.size() : run.load.concurrency.size();
  d.pool_prompts = pipeline::pool_prompts_for(run.dataset, listed);
  if (run.tokenizer) {
    p.tokenizer = Tokenizer::load(*run.tokenizer);
    p.local_tokenizer = true;
  }
  p.dataset = pipeline::load_for_run(d, p.tokenizer.get(), p.local_tokenizer);
  if (p.dataset.requests.empty()) throw UserError("the dataset produced no request");
  const std::string model = run.model.value_or(cfg.engine.hardware.model.name);
  p.bodies = pipeline::build_request_bodies(run, model, p.dataset.requests);
  p.staircase = plan_staircase(run.load, static_cast<int>(p.dataset.requests.size()));
  report::RunContext& ctx = p.ctx;
  ctx.model_id = model;
  ctx.served_model_name = model;
  ctx.engine = "servebench-sim";
  ctx.engine_clue = "predicted";
  ctx.tokenizer_id = run.tokenizer.value_or("");
  pipeline::fill_workload_context(run, p.staircase, ctx);  // as `run` fills it
  ctx.prediction_json = cfg.source_json;
  report::fill_environment(ctx);
  return p;
}

struct StagePlay {
  PlayedStage stage;
  std::vector<std::string> ids;  // request ids as run names them (the JSONL's request_id)
  std::string selection;         // which prompts the stage got (dataset/stage_prompts.hpp)
};

// The stage run's stage_input would send: its prompts, cycled when it lists more arrivals than
// prompts, at the schedule's intended offsets, under the stage's concurrency limit.
StagePlay stage_requests(const pipeline::RunConfig& run, const pipeline::Prepared& p, const StagePlan& plan) {
  const pipeline::StageWorkload work =
      pipeline::stage_workload(run, p, plan.index, static_cast<std::size_t>(plan.num_requests));
  const std::vector<RequestSpec>& specs = *work.specs;
  const std::size_t n = pipeline::stage_request_count(run, plan);
  const ScheduleParams sp{n, plan.load.request_rate, plan.load.burstiness, run.dataset.seed};
  const std::vector<Nanos> offsets =
      run.load.ramp.kind == RampKind::none ? make_schedule(sp) : make_ramp_schedule(sp, run.load.ramp);
  StagePlay play;
  play.selection = to_string(work.selection);
  PlayedStage& stage = play.stage;
  stage.max_concurrency = plan.load.max_concurrency;
  stage.requests.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    const RequestSpec& spec = specs[i % specs.size()];
    // The simulator's own EOS draw seeds from the request; any fixed per-request value will do.
    stage.requests.push_back({spec.prompt_tokens, spec.max_tokens, offsets[i], run.request.ignore_eos,
                              static_cast<std::uint64_t>(i) * 7919 + 1});
    std::string id = p.staircase.stages.size() > 1 ? fmt::format("{}-s{}", spec.request_id, plan.index) : spec.request_id;
    if (i >= specs.size() && !id.empty()) id += fmt::format("-c{}", i / specs.size());
    play.ids.push_back(std::move(id));
  }
  return play;
}

StageSummary summarize_played(const pipeline::RunConfig& run, const pipeline::Prepared& p, const StagePlan& plan,
                              const PlayedOutput& out) {
  SummarizeParams sp;
  sp.stage_index = plan.index;
  sp.load = plan.load;
  sp.num_prompts = static_cast<int>(out.records.size());
  sp.percentiles = run.metric_percentiles;
  sp.goodput_slo_ms = run.goodput_slo_ms;
  sp.duration_ns = out.end_ns;
  sp.anchor = p.ctx.clock_anchor;
  sp.t0_ns = 0;
  return summarize(out.records, sp);
}

}  // namespace

Problems unsupported_in_prediction(const pipeline::RunConfig& c) {
  Problems out;
  if (c.load.search)
    out.push_back({"load.search", "a searched staircase chooses stages from measured answers: list the loads"});
  if (c.stage_seconds) out.push_back({"stage_seconds", "not predicted: give the stage's requests with --num-prompts"});
  if (c.repeats > 1) out.push_back({"repeats", "a prediction has no run-to-run noise: leave it at 1"});
  return out;
}

PredictResult predict_staircase(const PredictConfig& cfg, const PredictIo& io) {
  throw_if_problems(unsupported_in_prediction(cfg.run));
  throw_if_problems(pipeline::validate(cfg.run));
  const pipeline::Prepared p = prepare_offline(cfg);
  sim::Engine probe(cfg.engine);  // the configuration's own errors (does not fit) before any output
  pipeline::RunOutputs outputs(cfg.run, p.ctx);
  report::ConsoleOptions console;
  console.percentile_metrics = cfg.run.percentile_metrics;
  console.metric_percentiles = cfg.run.metric_percentiles;
  console.goodput = !cfg.run.goodput_slo_ms.empty();
  console.has_tokenizer = true;
  PredictResult result;
  for (const StagePlan& plan : p.staircase.stages) {
    const StagePlay play = stage_requests(cfg.run, p, plan);
    const PlayedOutput out = play_stage(cfg.engine, play.stage);
    for (const RequestRecord& r : out.records) outputs.append_record(plan.index, play.ids[r.index], r);
    StageSummary s = summarize_played(cfg.run, p, plan, out);
    s.prompt_selection = play.selection;
    outputs.stage_done(s, out.records);
    if (!io.quiet) print_text(io.out, report::format_console_summary(s, console));
    result.engine_steps += out.engine_steps;
    result.stages.push_back(std::move(s));
  }
  result.analysis = outputs.finish(false);
  if (!result.analysis) {
    results::RunInfo info;
    info.source = cfg.run.output_json;
    info.label = cfg.run.label;
    info.load_mode = p.ctx.load_mode;
    info.config_json = p.ctx.config_json;
    result.analysis = pipeline::analyze_stages(info, result.stages);
  }
  if (!io.quiet) print_text(io.out, report::format_staircase_table(p.ctx.load_mode, result.stages));
  for (const std::string& path : outputs.written()) std::fprintf(io.err, "wrote %s\n", path.c_str());
  const std::vector<std::string> lost = outputs.lost();
  for (const std::string& line : lost) std::fprintf(io.err, "error: %s\n", line.c_str());
  if (!lost.empty()) result.code = ExitCode::write_failed;
  return result;
}

}  // namespace sb::predict
