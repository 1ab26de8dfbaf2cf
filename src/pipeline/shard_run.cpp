#include "pipeline/shard_run.hpp"

#include <fmt/format.h>

#include <filesystem>

#include "core/clock.hpp"
#include "pipeline/shard_plan.hpp"

namespace sb::pipeline {

namespace {

BarrierParams barrier_params(const RunConfig& cfg, const std::string& hash) {
  BarrierParams b;
  // The sweep documents' folder is the one every shard must share anyway (merge reads them there).
  const std::filesystem::path doc_dir = std::filesystem::path(cfg.output_json).parent_path();
  b.dir = !cfg.barrier_dir.empty() ? cfg.barrier_dir : doc_dir.empty() ? std::string(".") : doc_dir.string();
  b.shard = cfg.shard;
  b.run_key = fmt::format("{}-{}", hash, cfg.start_at_unix_ns.value_or(0));
  b.timeout_s = cfg.barrier_timeout_s;
  return b;
}

}  // namespace

ShardRun::ShardRun(const RunConfig& cfg, const Prepared& p, std::stop_token stop)
    : barrier_(barrier_params(cfg, plan_hash(cfg, p))), start_at_unix_ns_(cfg.start_at_unix_ns), stop_(std::move(stop)) {
  record_.spec = cfg.shard;
  record_.plan_hash = plan_hash(cfg, p);
  record_.start_at_unix_ns = cfg.start_at_unix_ns;
}

std::int64_t ShardRun::before_stage(std::size_t ordinal) {
  clock_offset_ms_.reset();
  if (ordinal == 0 && start_at_unix_ns_) {
    sleep_until_unix(*start_at_unix_ns_, stop_);
    return *start_at_unix_ns_;
  }
  const std::optional<BarrierPass> pass =
      barrier_.arrive(ordinal == 0 ? std::string("ready") : fmt::format("stage-{}", ordinal - 1), stop_);
  if (!pass) return 0;  // stopped: the runner, stopped too, ends the stage at once
  clock_offset_ms_ = pass->clock_offset_ms;
  sleep_until_unix(pass->start_unix_ns, stop_);
  return pass->start_unix_ns;
}

void ShardRun::after_stage(const StagePlan& whole, const StagePlan& own, std::int64_t planned_unix_ns,
                           std::int64_t t0_unix_ns) {
  ShardStageRecord s;
  s.stage_index = whole.index;
  s.plan_max_concurrency = whole.load.max_concurrency;
  s.shard_max_concurrency = own.load.max_concurrency.value_or(0);
  s.requests = own.num_requests;
  s.plan_requests = whole.num_requests;
  s.planned_start_unix_ns = planned_unix_ns;
  s.t0_unix_ns = t0_unix_ns;
  s.clock_offset_ms = clock_offset_ms_;
  record_.stages.push_back(s);
}

}  // namespace sb::pipeline
