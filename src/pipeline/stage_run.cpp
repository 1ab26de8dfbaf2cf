#include "pipeline/stage_run.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/clock.hpp"
#include "metrics/client_use.hpp"
#include "metrics/request_record.hpp"
#include "metrics/summarize.hpp"
#include "pipeline/modelled_time.hpp"
#include "pipeline/output_recount.hpp"
#include "pipeline/run_console.hpp"
#include "pipeline/run_progress.hpp"
#include "pipeline/shard_plan.hpp"
#include "pipeline/stage_input.hpp"
#include "pipeline/steady_stage.hpp"
#include "report/console_summary.hpp"
#include "report/progress_line.hpp"
#include "report/remedies.hpp"
#include "report/run_context.hpp"
#include "report/steady_text.hpp"
#include "report/telemetry_text.hpp"

namespace sb::pipeline {

using report::ProgressView;
using report::RampHeader;
using report::RunContext;
using report::format_stage_header;
using report::format_failed_requests;
using report::format_console_summary;
using report::ConsoleOptions;
using report::format_remedies;
using report::format_steady_summary;

namespace {

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

void print_stage_header(const RunContext& ctx, const StagePlan& plan, const RunIo& io) {
  const RampHeader ramp{ctx.ramp_up_strategy, ctx.ramp_up_start_rps, ctx.ramp_up_end_rps};
  print(io.out, format_stage_header(plan.load, ctx.ramp_up_strategy.empty() ? nullptr : &ramp));
}

// The counts re-tokenized while the stage ran go into its records; the text stays only for --save-detailed.
void apply_recounts(std::vector<RequestRecord>& records, const std::unordered_map<std::uint32_t, int>& recounted,
                    bool save_detailed) {
  for (RequestRecord& r : records) {
    if (const auto it = recounted.find(r.index); it != recounted.end()) {
      r.output_tokens = it->second;
      r.token_source = TokenSource::tokenizer;
    }
    if (!save_detailed) std::string().swap(r.generated_text);
  }
}

void print_stage_summary(const RunConfig& cfg, const StageSummary& s, const std::vector<RequestRecord>& records,
                         const RunIo& io) {
  print(io.out, format_failed_requests(records) + format_console_summary(s, console_options(cfg)) +
                   format_steady_summary(s) + report::format_stage_telemetry(s) + format_remedies(records) +
                   report::format_resent(s));
}

}  // namespace

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
  StageOutput out = runner.run_stage(in, on_record, [&](const Progress& pr) { progress.update(pr); },
                                     [&] { outputs.flush_records(); });
  outputs.flush_records();  // a pass's call may have come after the last request, or not yet
  progress.clear();
  apply_recounts(out.records, recounted, cfg.save_detailed);
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
  print_stage_summary(cfg, run.summary, out.records, io);
  run.stop = out.aborted;
  return run;
}

}  // namespace sb::pipeline
