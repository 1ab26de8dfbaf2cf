#include "pipeline/run_pipeline.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <limits>

#include "pipeline/output_recount.hpp"
#include "report/remedies.hpp"
#include "pipeline/run_outputs.hpp"
#include "pipeline/run_prepare.hpp"
#include "pipeline/run_progress.hpp"
#include "pipeline/stage_workload.hpp"
#include "core/error.hpp"
#include "exec/runner.hpp"
#include "load/schedule.hpp"
#include "metrics/summarize.hpp"
#include "report/console_summary.hpp"
#include "report/staircase_table.hpp"

namespace sb::pipeline {

using report::ProgressView;
using report::RampHeader;
using report::RunContext;
using report::format_stage_header;
using report::format_failed_requests;
using report::format_console_summary;
using report::ConsoleOptions;
using report::format_staircase_table;
using report::format_remedies;
using report::format_failure_stop;
using report::remedy;

namespace {

void note(const RunIo& io, const std::string& line) { std::fprintf(io.err, "%s\n", line.c_str()); }

// Once a write to `out` failed (EPIPE: `servebench run | head -1`, SIGPIPE being ignored), printing
// stops and the run goes on writing its files.
void print(std::FILE* out, const std::string& text) {
  if (std::ferror(out)) return;
  std::fputs(text.c_str(), out);
  std::fflush(out);
}

// The configured client, plus what only the run knows: the API key in front of the --header pairs,
// and whether records keep their text.
ClientOptions client_options(const RunConfig& cfg, const Prepared& p) {
  ClientOptions o = cfg.client;
  o.headers = request_headers(cfg);
  // The text is needed for --save-detailed, and to re-tokenize outputs the server did not count.
  o.keep_text = o.keep_text || cfg.save_detailed || p.local_tokenizer;
  return o;
}

ConsoleOptions console_options(const RunConfig& cfg) {
  ConsoleOptions o;
  o.percentile_metrics = cfg.percentile_metrics;
  o.metric_percentiles = cfg.metric_percentiles;
  o.goodput = !cfg.goodput_slo_ms.empty();
  o.has_tokenizer = true;  // counts always exist: usage, the tokenizer, or token events
  return o;
}

ProgressView stage_view(const Staircase& sc, const StagePlan& plan) {
  ProgressView v;
  v.stage_index = plan.index;
  v.stage_count = sc.stages.size();
  const std::string value = plan.load_value == std::numeric_limits<double>::infinity()
                                ? "inf"
                                : fmt::format("{:g}", plan.load_value);
  v.load_label = sc.mode == LoadMode::concurrency ? "concurrency " + value : "rate " + value + " req/s";
  return v;
}

}  // namespace
}  // namespace sb::pipeline

namespace sb::pipeline {

namespace {

// What a stage sends: its own prompts (stage_workload.hpp), kept alive with the input.
struct StageWork {
  StageWorkload workload;
  StageInput in;
};

StageWork stage_input(const RunConfig& cfg, const Prepared& p, const StagePlan& plan) {
  StageWork work;
  const std::size_t n = static_cast<std::size_t>(plan.num_requests);
  work.workload = stage_workload(cfg, p, plan.index, n);
  const std::vector<RequestSpec>& specs = *work.workload.specs;
  StageInput& in = work.in;
  in.stage_index = plan.index;
  in.bodies = work.workload.bodies.get();
  const bool several = p.staircase.stages.size() > 1;
  const ScheduleParams sp{n, plan.load.request_rate, plan.load.burstiness, cfg.dataset.seed};
  const RampUp& ramp = cfg.load.ramp;
  const std::vector<Nanos> offsets = ramp.kind == RampKind::none ? make_schedule(sp) : make_ramp_schedule(sp, ramp);
  in.requests.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    const RequestSpec& spec = specs[i];
    // Ids stay unique across stages: a server may reject a request id it has seen in flight.
    in.requests.push_back({several ? fmt::format("{}-s{}", spec.request_id, plan.index) : spec.request_id,
                           spec.prompt_tokens, spec.max_tokens, offsets[i]});
  }
  in.max_concurrency = plan.load.max_concurrency;
  return work;
}

// vLLM's warm-up: K copies of the first request under the first stage's limit; results ignored.
void run_warmups(const RunConfig& cfg, const Prepared& p, Runner& runner, const RunIo& io) {
  if (cfg.num_warmups <= 0) return;
  std::vector<std::string> bodies(static_cast<std::size_t>(cfg.num_warmups), p.bodies.front());
  StageInput in;
  in.bodies = &bodies;
  const RequestSpec& first = p.dataset.requests.front();
  for (int i = 0; i < cfg.num_warmups; ++i)
    in.requests.push_back({fmt::format("{}warmup-{}", cfg.dataset.request_id_prefix, i), first.prompt_tokens,
                           first.max_tokens, 0});
  in.max_concurrency = p.staircase.stages.front().load.max_concurrency;
  StageOutput out = runner.run_stage(in, {}, {});
  int failed = 0;
  for (const RequestRecord& r : out.records) failed += r.ok() ? 0 : 1;
  note(io, fmt::format("Warm-up: {} requests, {} failed", cfg.num_warmups, failed));
}

// As vLLM's benchmark: one request built like the run's first (same body, streamed), before any
// stage; its failure ends the run as unreachable (exit 3) with the cause. Its own runner: one
// thread, no grace on a stop, a timeout of at most 300 s.
void run_preflight_request(const RunConfig& cfg, const Prepared& p, std::stop_token stop) {
  if (!cfg.preflight_request) return;
  ClientOptions opt = client_options(cfg, p);
  opt.threads = 1;
  opt.stop_grace_s = 0;
  opt.timeout_s = std::min(opt.timeout_s, 300.0);
  Runner runner(opt);
  std::stop_callback on_stop(stop, [&runner] { runner.request_stop(); });
  StageInput in;
  in.bodies = &p.bodies;
  const RequestSpec& first = p.dataset.requests.front();
  in.requests.push_back({cfg.dataset.request_id_prefix + "preflight", first.prompt_tokens, first.max_tokens, 0});
  const StageOutput out = runner.run_stage(in, {}, {});
  const RequestRecord& r = out.records.front();
  if (r.ok() || stop.stop_requested()) return;
  const std::string fix = remedy(classify_failure(r.http_status, r.error));
  throw UserError(fmt::format("the test request (POST {}, built like the run's first) failed ({}): {}{}; "
                              "--no-preflight-request skips it",
                              cfg.client.endpoint.url(cfg.client.path), to_string(r.outcome), r.error,
                              fix.empty() ? "" : " -> " + fix),
                  ExitCode::unreachable);
}

StageSummary summarize_stage(const RunConfig& cfg, const Prepared& p, const StagePlan& plan,
                             const StageOutput& out) {
  SummarizeParams sp;
  sp.stage_index = plan.index;
  sp.load = plan.load;
  sp.num_prompts = plan.num_requests;
  sp.percentiles = cfg.metric_percentiles;
  sp.goodput_slo_ms = cfg.goodput_slo_ms;
  sp.duration_ns = out.end_ns;
  sp.anchor = p.ctx.clock_anchor;
  sp.t0_ns = out.t0_ns;
  sp.aborted = out.aborted;
  return summarize(out.records, sp);
}

bool too_many_failures(const RunConfig& cfg, const StageSummary& s) {
  return cfg.max_failure_ratio && s.sent > 0 &&
         static_cast<double>(s.failed) / s.sent > *cfg.max_failure_ratio;
}

void print_stage_header(const RunContext& ctx, const StagePlan& plan, const RunIo& io) {
  const RampHeader ramp{ctx.ramp_up_strategy, ctx.ramp_up_start_rps, ctx.ramp_up_end_rps};
  print(io.out, format_stage_header(plan.load, ctx.ramp_up_strategy.empty() ? nullptr : &ramp));
}

struct StageRun {
  StageSummary summary;
  bool stop = false;
};

struct StageEnv {
  const RunConfig& cfg;
  const Prepared& p;
  Runner& runner;
  RunOutputs& outputs;
  const RunIo& io;
};

StageRun run_one_stage(const StageEnv& env, const StagePlan& plan) {
  const auto& [cfg, p, runner, outputs, io] = env;
  const StageWork work = stage_input(cfg, p, plan);
  const StageInput& in = work.in;
  print_stage_header(p.ctx, plan, io);
  ProgressLine progress(io.err, io.progress && !cfg.disable_tqdm && isatty(fileno(io.err)),
                        stage_view(p.staircase, plan));
  // Outputs re-tokenized on the worker thread (local tokenizer only: microseconds, no I/O); each
  // slot is written by the one thread that finished that request, applied after the stage.
  std::vector<int> recounted(in.requests.size(), -1);
  auto on_record = [&](const RequestRecord& r) {
    if (!p.local_tokenizer || !needs_output_recount(r)) {
      outputs.append_record(plan.index, in.requests[r.index].id, r);
      return;
    }
    RequestRecord copy = r;
    recount_output_tokens(*p.tokenizer, copy, false);
    recounted[r.index] = copy.output_tokens;
    outputs.append_record(plan.index, in.requests[r.index].id, copy);
  };
  StageOutput out = runner.run_stage(in, on_record, [&](const Progress& pr) { progress.update(pr); });
  progress.clear();
  for (RequestRecord& r : out.records) {
    if (recounted[r.index] >= 0) {
      r.output_tokens = recounted[r.index];
      r.token_source = TokenSource::tokenizer;
    }
    if (!cfg.save_detailed) std::string().swap(r.generated_text);
  }
  StageRun run;
  run.summary = summarize_stage(cfg, p, plan, out);
  run.summary.prompt_selection = to_string(work.workload.selection);
  outputs.stage_done(run.summary, out.records);
  print(io.out, format_failed_requests(out.records) + format_console_summary(run.summary, console_options(cfg)) +
                   format_remedies(out.records));
  run.stop = out.aborted;
  return run;
}

}  // namespace

RunResult run(const RunConfig& cfg, const RunIo& io, std::stop_token stop) {
  throw_if_problems(validate(cfg));
  std::optional<Prepared> prepared = prepare_until_stopped(cfg, io.err, stop);
  RunResult result;
  if (!prepared) {
    note(io, "aborted: stopped before the load started; nothing was sent, nothing written");
    result.aborted = true;
    result.code = ExitCode::aborted;
    return result;
  }
  Prepared& p = *prepared;
  result.model_id = p.ctx.model_id;
  run_preflight_request(cfg, p, stop);  // before any output file exists
  RunOutputs outputs(cfg, p.ctx);
  Runner runner(client_options(cfg, p));
  // Runs on the requesting thread (or here, when the stop came during preparation).
  std::stop_callback stop_runner(stop, [&runner] { runner.request_stop(); });
  if (!stop.stop_requested()) run_warmups(cfg, p, runner, io);
  bool failures = false;
  const StageEnv env{cfg, p, runner, outputs, io};
  for (const StagePlan& plan : p.staircase.stages) {
    if (stop.stop_requested()) break;
    StageRun stage = run_one_stage(env, plan);
    const bool too_many = too_many_failures(cfg, stage.summary);
    // A server that is down (or killed mid-run) fails every later stage too: stop here.
    if (too_many) note(io, format_failure_stop(p.staircase.mode, plan.load_value, stage.summary));
    failures = failures || too_many;
    result.stages.push_back(std::move(stage.summary));
    if (too_many || stage.stop || stop.stop_requested()) break;
  }
  result.aborted = stop.stop_requested();
  result.analysis = outputs.finish(result.aborted);
  if (!result.stages.empty()) print(io.out, format_staircase_table(p.ctx.load_mode, result.stages));
  for (const std::string& path : outputs.written()) note(io, "wrote " + path);
  if (result.aborted) {
    note(io, "aborted: outputs written and marked \"aborted\": true");
    result.code = ExitCode::aborted;
  } else if (failures) {
    note(io, fmt::format("failed: a stage's failure ratio exceeded --max-failure-ratio {} (1 never stops)",
                         *cfg.max_failure_ratio));
    result.code = ExitCode::too_many_failures;
  }
  return result;
}

}  // namespace sb::pipeline
