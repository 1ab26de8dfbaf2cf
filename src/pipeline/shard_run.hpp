#pragma once
// One shard of a sharded run (docs/distributed.md), as the pipeline sees it: when each stage starts
// (--start-at for the first, else a "ready" barrier; every later stage at the barrier after the one
// before) and what the shard records about itself for `servebench merge` (load/shard.hpp ShardRecord).
#include <cstdint>
#include <optional>
#include <stop_token>

#include "load/shard.hpp"
#include "load/staircase.hpp"
#include "pipeline/run_config.hpp"
#include "pipeline/run_prepare.hpp"
#include "pipeline/stage_barrier.hpp"

namespace sb::pipeline {

class ShardRun {
 public:
  ShardRun(const RunConfig& cfg, const Prepared& p, std::stop_token stop);

  // Blocks until stage `ordinal` (counted across --repeats) may start; returns its planned start
  // (unix ns). Throws sb::UserError when another shard never arrives.
  std::int64_t before_stage(std::size_t ordinal);
  // The stage as run: `whole` is the plan's, `own` this shard's slice; times in unix ns.
  void after_stage(const StagePlan& whole, const StagePlan& own, std::int64_t planned_unix_ns,
                   std::int64_t t0_unix_ns);

  const ShardRecord& record() const noexcept { return record_; }

 private:
  StageBarrier barrier_;
  std::optional<std::int64_t> start_at_unix_ns_;
  std::stop_token stop_;
  std::optional<double> clock_offset_ms_;  // at the barrier before the current stage
  ShardRecord record_;
};

}  // namespace sb::pipeline
