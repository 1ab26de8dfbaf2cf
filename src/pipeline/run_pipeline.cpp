#include "pipeline/run_pipeline.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <optional>
#include <stop_token>
#include <string>
#include <utility>
#include <vector>

#include "analyze/repeat_spread.hpp"
#include "core/exit_codes.hpp"
#include "core/problem.hpp"
#include "exec/runner.hpp"
#include "load/load_search.hpp"
#include "load/staircase.hpp"
#include "metrics/stage_summary.hpp"
#include "pipeline/output_paths.hpp"
#include "pipeline/run_client.hpp"
#include "pipeline/run_console.hpp"
#include "pipeline/run_outputs.hpp"
#include "pipeline/run_prepare.hpp"
#include "pipeline/run_telemetry.hpp"
#include "pipeline/shard_run.hpp"
#include "pipeline/stage_run.hpp"
#include "pipeline/stage_source.hpp"
#include "report/load_search.hpp"
#include "report/remedies.hpp"
#include "report/repeat_text.hpp"
#include "report/staircase_table.hpp"

namespace sb::pipeline {

using report::format_staircase_table;
using report::format_failure_stop;
using report::format_repeat_header;
using report::format_repeat_spread;

namespace {

bool too_many_failures(const RunConfig& cfg, const StageSummary& s) {
  return cfg.max_failure_ratio && s.sent > 0 &&
         static_cast<double>(s.failed) / s.sent > *cfg.max_failure_ratio;
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
  const std::optional<double> one_request_s = run_preflight_request(cfg, p, io, stop);  // before any output file exists
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
