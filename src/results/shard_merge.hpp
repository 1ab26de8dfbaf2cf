#pragma once
// The shards of one sharded run (results/shard_input.hpp) merged into one run's stage summaries
// (docs/distributed.md): every shard's records placed on one clock (the stage's planned start, else
// the earliest shard start), then vLLM's statistics over all of them (metrics/summarize), so the
// percentiles are those of the union, and throughput is over the union's wall time. Per-shard
// figures and warnings (numbers and enums) come along; report/ words them.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "metrics/stage_summary.hpp"
#include "results/shard_input.hpp"

namespace sb::results {

struct ShardMergeParams {
  std::vector<double> percentiles{99};           // the run's --metric-percentiles
  std::map<std::string, double> goodput_slo_ms;  // the run's --goodput
  double late_start_ms = 10;    // a shard whose stage started this much after the planned instant
  double clock_skew_ms = 10;    // spread of the shards' clock offsets at the barrier above this
  double dispatch_lag_ms = 10;  // a shard's own dispatch lag p99 above this: it fell behind its schedule
};

struct ShardStageFigures {
  int shard = 0;
  std::size_t stage_index = 0;
  int requests = 0, completed = 0, failed = 0;
  std::int64_t output_tokens = 0;
  double duration_s = 0;                          // its t0 to its last completion
  double request_throughput = 0, output_throughput = 0;
  double start_offset_ms = 0;                     // its t0 − the stage's reference start
  std::optional<double> clock_offset_ms;          // its clock − the shared folder's
  std::optional<double> dispatch_lag_p99_ms;
};

enum class ShardWarning {
  late_start,   // started value_ms after the planned instant (or after the first shard)
  clock_skew,   // the shards' clocks disagree by value_ms (spread of the barrier offsets)
  straggler,    // its dispatch lag p99 was value_ms: it could not keep to its schedule
};

struct ShardWarningAt {
  ShardWarning kind = ShardWarning::late_start;
  std::size_t stage_index = 0;
  int shard = -1;        // -1: all shards (clock_skew)
  double value_ms = 0;
};

struct MergedShards {
  int shard_count = 0;
  std::string plan_hash;
  std::vector<StageSummary> stages;               // run order
  std::vector<ShardStageFigures> per_shard;       // stage by stage, shard by shard
  std::vector<ShardWarningAt> warnings;
};

// Throws sb::UserError (one line) when the shards do not make one whole run: different plan
// hashes or shard counts, a shard missing or given twice, stages that do not line up.
MergedShards merge_shards(const std::vector<ShardInput>& shards, const ShardMergeParams& p);

}  // namespace sb::results
