#include "pipeline/run_pipeline.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <limits>
#include <unordered_map>

#include "pipeline/output_paths.hpp"
#include "pipeline/modelled_time.hpp"
#include "pipeline/output_recount.hpp"
#include "report/remedies.hpp"
#include "pipeline/run_outputs.hpp"
#include "pipeline/run_prepare.hpp"
#include "pipeline/run_progress.hpp"
#include "pipeline/run_telemetry.hpp"
#include "pipeline/shard_plan.hpp"
#include "pipeline/shard_run.hpp"
#include "report/telemetry_text.hpp"
#include "pipeline/stage_bounds.hpp"
#include "pipeline/steady_stage.hpp"
#include "pipeline/stage_source.hpp"
#include "pipeline/stage_workload.hpp"
#include "core/error.hpp"
#include "exec/runner.hpp"
#include "load/schedule.hpp"
#include "metrics/client_use.hpp"
#include "metrics/summarize.hpp"
#include "report/console_summary.hpp"
#include "report/load_search.hpp"
#include "report/staircase_table.hpp"
#include "report/steady_text.hpp"
#include "report/repeat_text.hpp"
#include "analyze/repeat_spread.hpp"

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
using report::format_steady_summary;
using report::format_repeat_header;
using report::format_repeat_spread;

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

ProgressView stage_view(const Staircase& sc, const StagePlan& plan, std::size_t stage_count) {
  ProgressView v;
  v.stage_index = plan.index;
  v.stage_count = stage_count;
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
  std::vector<std::uint32_t> global_index;  // --shard: each kept request's index in the whole stage
};

// `ordinal` numbers the stage across --repeats passes, so a later pass draws fresh prompts too.
StageWork stage_input(const RunConfig& cfg, const Prepared& p, const StagePlan& plan, int repeat, std::size_t ordinal) {
  StageWork work;
  work.workload = stage_workload(cfg, p, ordinal, static_cast<std::size_t>(plan.num_requests));
  const std::vector<RequestSpec>& specs = *work.workload.specs;
  StageInput& in = work.in;
  in.stage_index = plan.index;
  in.bodies = work.workload.bodies.get();
  const std::size_t n = stage_request_count(cfg, plan);  // --stage-seconds: S seconds of arrivals
  const std::size_t size = specs.size();
  const bool several = p.staircase.stages.size() > 1 || cfg.load.search || cfg.repeats > 1;
  const ScheduleParams sp{n, plan.load.request_rate, plan.load.burstiness, cfg.dataset.seed};
  const RampUp& ramp = cfg.load.ramp;
  std::vector<Nanos> offsets = ramp.kind == RampKind::none ? make_schedule(sp) : make_ramp_schedule(sp, ramp);
  to_wall_offsets(offsets, p.ctx.time_factor);  // planned in the modelled GPU's time
  in.requests.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    const RequestSpec& spec = specs[i % size];  // more arrivals than prompts: reused
    // Ids stay unique across stages: a server may reject a request id it has seen in flight.
    std::string id = (several ? fmt::format("{}-s{}", spec.request_id, plan.index) : spec.request_id) +
                     repeat_suffix(repeat);
    if (i >= size && !id.empty()) id += fmt::format("-c{}", i / size);
    in.requests.push_back({std::move(id), spec.prompt_tokens, spec.max_tokens, offsets[i],
                           static_cast<std::int64_t>(i % size)});
  }
  in.max_concurrency = plan.load.max_concurrency;
  bound_stage(cfg, plan, in);  // closed loop with --stage-seconds: the runner's duration bound
  if (in.issue_for_ns > 0) in.issue_for_ns = to_wall_ns(in.issue_for_ns, p.ctx.time_factor);
  if (cfg.shard.sharded()) work.global_index = slice_stage(cfg.shard, in);  // docs/distributed.md
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
  // A searched staircase starts at c=1, or at rates under --max-concurrency.
  in.max_concurrency = !p.staircase.stages.empty() ? p.staircase.stages.front().load.max_concurrency
                       : cfg.load.search == LoadMode::concurrency ? std::optional<int>(1)
                                                                   : cfg.load.max_concurrency;
  StageOutput out = runner.run_stage(in, {}, {});
  int failed = 0;
  for (const RequestRecord& r : out.records) failed += r.ok() ? 0 : 1;
  note(io, fmt::format("Warm-up: {} requests, {} failed", cfg.num_warmups, failed));
}

// As vLLM's benchmark: one request built like the run's first (same body, streamed), before any
// stage; its failure ends the run as unreachable (exit 3) with the cause. Its own runner: one
// thread, no grace on a stop, a timeout of at most 300 s. Returns its latency (s) when it ran.
std::optional<double> run_preflight_request(const RunConfig& cfg, const Prepared& p, std::stop_token stop) {
  if (!cfg.preflight_request) return std::nullopt;
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
  if (stop.stop_requested()) return std::nullopt;
  if (r.ok()) return r.latency_ns() > 0 ? std::optional<double>(static_cast<double>(r.latency_ns()) / 1e9) : std::nullopt;
  const std::string fix = remedy(classify_failure(r.http_status, r.error));
  throw UserError(fmt::format("the test request (POST {}, built like the run's first) failed ({}): {}{}; "
                              "--no-preflight-request skips it",
                              cfg.client.endpoint.url(cfg.client.path), to_string(r.outcome), r.error,
                              fix.empty() ? "" : " -> " + fix),
                  ExitCode::unreachable);
}

// `use` is measured before the records go to modelled time (modelled_time.hpp): it is the client's.
StageSummary summarize_stage(const RunConfig& cfg, const Prepared& p, const StagePlan& plan,
                             const StageOutput& out, const ClientUse& use) {
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
  // A duration-bounded stage planned no count: its requests are the ones it issued.
  if (out.issue_end_ns >= 0 || (cfg.stage_seconds && !cfg.prompts_bound_stages))
    sp.num_prompts = static_cast<int>(out.records.size());
  StageSummary s = summarize(out.records, sp);
  apply_client_use(s, use);
  add_steady_state(cfg, out, s);
  return s;
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
  std::size_t stage_count;  // for the progress line: the list's length or the search's budget
  int repeat = 0;           // --repeats: the pass of the staircase
  RunTelemetry* telemetry = nullptr;  // --scrape-metrics / --gpu-telemetry; null when neither
  ShardRun* shard = nullptr;          // --shard I/N with N > 1; null otherwise
};

StageRun run_one_stage(const StageEnv& env, const StagePlan& whole) {
  // Named one by one: clang 14 (the asan preset) cannot capture structured bindings in lambdas.
  const RunConfig& cfg = env.cfg;
  const Prepared& p = env.p;
  Runner& runner = env.runner;
  RunOutputs& outputs = env.outputs;
  const RunIo& io = env.io;
  const std::size_t stage_count = env.stage_count;
  const int repeat = env.repeat;
  RunTelemetry* const telemetry = env.telemetry;
  ShardRun* const shard = env.shard;
  const std::size_t ordinal = static_cast<std::size_t>(repeat) * stage_count + whole.index;
  const StageWork work = stage_input(cfg, p, whole, repeat, ordinal);
  const StageInput& in = work.in;
  const StagePlan plan = cfg.shard.sharded() ? shard_stage_plan(whole, in) : whole;  // a shard's summary is its own
  print_stage_header(p.ctx, plan, io);
  ProgressLine progress(io.err, io.progress && !cfg.disable_tqdm && isatty(fileno(io.err)),
                        stage_view(p.staircase, plan, stage_count));
  // Outputs re-tokenized on the worker thread (local tokenizer only: microseconds, no I/O); each
  // slot is written by the one thread that finished that request, applied after the stage.
  // A map: cycled stages (--stage-seconds) issue more requests than listed. The runner calls
  // on_record one at a time.
  std::unordered_map<std::uint32_t, int> recounted;
  const double k = p.ctx.time_factor;
  auto on_record = [&](const RequestRecord& r) {
    const bool recount = p.local_tokenizer && needs_output_recount(r);
    if (!recount && k == 1 && !cfg.shard.sharded()) {
      outputs.append_record(plan.index, stage_request_id(in, r.index), r);
      return;
    }
    RequestRecord copy = r;
    to_modelled(copy, k);
    // A shard's JSONL holds the request's index in the whole stage: the union of the shards is the plan.
    if (cfg.shard.sharded()) copy.index = work.global_index[r.index];
    if (recount) {
      recount_output_tokens(*p.tokenizer, copy, false);
      recounted[r.index] = copy.output_tokens;
    }
    outputs.append_record(plan.index, stage_request_id(in, r.index), copy);
  };
  const std::int64_t planned_unix_ns = shard ? shard->before_stage(ordinal) : 0;
  if (telemetry) telemetry->begin_stage();
  StageOutput out = runner.run_stage(in, on_record, [&](const Progress& pr) { progress.update(pr); });
  progress.clear();
  for (RequestRecord& r : out.records) {
    if (const auto it = recounted.find(r.index); it != recounted.end()) {
      r.output_tokens = it->second;
      r.token_source = TokenSource::tokenizer;
    }
    if (!cfg.save_detailed) std::string().swap(r.generated_text);
  }
  const ClientUse use = client_use(out.records, out.client_times, cfg.client_ceiling);
  const Nanos wall_end_ns = out.end_ns;
  to_modelled(out, k);
  StageRun run;
  run.summary = summarize_stage(cfg, p, plan, out, use);
  // The stage's place on the wall clock stays the wall clock's: profiler traces and telemetry align to it.
  run.summary.end_unix_s = static_cast<double>(p.ctx.clock_anchor.to_unix_ns(out.t0_ns + wall_end_ns)) / 1e9;
  run.summary.repeat = repeat;
  run.summary.prompt_selection = to_string(work.workload.selection);
  if (telemetry) telemetry->end_stage(run.summary, k);
  if (shard) {
    shard->after_stage(whole, plan, planned_unix_ns, p.ctx.clock_anchor.to_unix_ns(out.t0_ns));
    outputs.set_shard(shard->record());
  }
  outputs.stage_done(run.summary, out.records);
  print(io.out, format_failed_requests(out.records) + format_console_summary(run.summary, console_options(cfg)) +
                   format_steady_summary(run.summary) + report::format_stage_telemetry(run.summary) +
                   format_remedies(out.records));
  run.stop = out.aborted;
  return run;
}

// Runs the stages `source` gives until it is done, a stage fails too often (returns true) or the
// run is stopped; each summary goes into result.stages (in load order for a searched run).
bool run_stages(const StageEnv& env, StageSource& source, std::stop_token stop, RunResult& result) {
  // Named one by one: clang 14 (the asan preset) cannot capture structured bindings in lambdas.
  const RunConfig& cfg = env.cfg;
  const Prepared& p = env.p;
  RunOutputs& outputs = env.outputs;
  const RunIo& io = env.io;
  const std::size_t first = result.stages.size();  // this pass's stages (--repeats: earlier passes stay put)
  bool failures = false;
  while (!stop.stop_requested()) {
    const std::optional<StagePlan> plan = source.next();
    if (!plan) break;
    if (!source.why().empty()) print(io.out, source.why() + "\n");
    if (source.record()) outputs.set_load_search(*source.record());
    StageRun stage = run_one_stage(env, *plan);
    source.done(stage.summary);
    const bool too_many = too_many_failures(cfg, stage.summary);
    // A server that is down (or killed mid-run) fails every later stage too: stop here.
    if (too_many) note(io, format_failure_stop(p.staircase.mode, plan->load_value, stage.summary));
    failures = failures || too_many;
    result.stages.push_back(std::move(stage.summary));
    if (too_many) source.stop(SearchStop::failures);
    if (stage.stop) source.stop(SearchStop::aborted);
    if (too_many || stage.stop || stop.stop_requested()) break;
  }
  if (stop.stop_requested()) source.stop(SearchStop::aborted);
  if (!source.record()) return failures;
  outputs.set_load_search(*source.record());
  print(io.out, report::format_search_end(*source.record()) + "\n");
  // Run order is the search's; the table reads by load.
  std::stable_sort(result.stages.begin() + static_cast<std::ptrdiff_t>(first), result.stages.end(), [&](const StageSummary& a, const StageSummary& b) {
    return p.staircase.mode == LoadMode::concurrency ? a.load.max_concurrency < b.load.max_concurrency
                                                     : a.load.request_rate < b.load.request_rate;
  });
  return failures;
}

}  // namespace

RunResult run(const RunConfig& cfg, const RunIo& io, std::stop_token stop) {
  throw_if_problems(validate(cfg));
  throw_if_problems(check_output_paths(cfg));  // before any request (preflight's included) is sent
  check_gpu_tool(cfg);
  if (cfg.client.endpoint.insecure)
    note(io, "warning: --insecure: TLS certificates are not verified (recorded as \"insecure\": true in the results)");
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
  std::vector<StageLoad> loads;
  for (const StagePlan& plan : p.staircase.stages) loads.push_back(plan.load);
  throw_if_problems(check_result_file_names(cfg, p.ctx, loads));
  const std::optional<double> one_request_s = run_preflight_request(cfg, p, stop);  // before any output file exists
  RunOutputs outputs(cfg, p.ctx);
  Runner runner(client_options(cfg, p));
  // Runs on the requesting thread (or here, when the stop came during preparation).
  std::stop_callback stop_runner(stop, [&runner] { runner.request_stop(); });
  if (!stop.stop_requested()) run_warmups(cfg, p, runner, io);
  RunTelemetry telemetry(cfg, request_headers(cfg), io);  // after the warm-ups: they are no stage's
  // --shard I/N: stage starts aligned with the other shards; --start-at alone: a one-shard run, timed
  // as each shard is (the first stage at that instant, a barrier's pause between stages).
  std::optional<ShardRun> shard;
  if (cfg.shard.sharded() || cfg.start_at_unix_ns) shard.emplace(cfg, p, stop);
  bool failures = false;
  for (int repeat = 0; repeat < cfg.repeats && !failures && !stop.stop_requested(); ++repeat) {  // --repeats
    if (cfg.repeats > 1) note(io, format_repeat_header(repeat, cfg.repeats));
    // Stages come from the fixed list, or one at a time from the knee search (--concurrency auto).
    StageSource source(cfg.load, p.staircase, static_cast<int>(p.dataset.requests.size()), one_request_s);
    failures = run_stages({cfg, p, runner, outputs, io, source.planned_count(), repeat,
                           telemetry.active() ? &telemetry : nullptr, shard ? &*shard : nullptr},
                          source, stop, result);
  }
  result.aborted = stop.stop_requested();
  result.analysis = outputs.finish(result.aborted);
  if (!result.stages.empty()) print(io.out, format_staircase_table(p.ctx.load_mode, result.stages));
  if (cfg.repeats > 1) print(io.out, format_repeat_spread(analyze::repeat_spread(result.stages)));
  for (const std::string& path : outputs.written()) note(io, "wrote " + path);
  const std::vector<std::string> lost = outputs.lost();
  for (const std::string& line : lost) note(io, "error: " + line);
  if (!lost.empty()) {
    // Lost results outrank an abort or a failure stop: the evidence the run was for is incomplete.
    result.code = ExitCode::write_failed;
    if (result.aborted) note(io, "aborted: the outputs above could not be written");
  } else if (result.aborted) {
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
