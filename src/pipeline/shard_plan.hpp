#pragma once
// A sharded run's plan (docs/distributed.md): what cannot be split, the hash every shard of one
// plan shares (merge refuses shards whose hashes differ), and one stage's slice (load/shard.hpp).
#include <cstdint>
#include <string>
#include <vector>

#include "core/problem.hpp"
#include "exec/runner.hpp"
#include "load/staircase.hpp"
#include "pipeline/run_config.hpp"
#include "pipeline/run_prepare.hpp"

namespace sb::pipeline {

// Problems of the shard settings with the rest of the run, by field ("shard.count", "load.concurrency").
Problems validate_shard(const RunConfig& c);

// Hash of the whole plan: the staircase (values, rates, limits, requests per stage, ramp), the seed
// and the dataset's bodies of stage 0. Identical in every shard of one plan, different otherwise.
std::string plan_hash(const RunConfig& cfg, const Prepared& p);

// Keeps the shard's requests of a stage's whole request list and sets its share of the limit.
// Returns, per kept request, its index in the whole list (what the JSONL records as `index`).
std::vector<std::uint32_t> slice_stage(const ShardSpec& s, StageInput& in);

// The stage as this shard runs it: its own request count and concurrency share (load_value stays the
// plan's, so every shard's stage k has the same load value).
StagePlan shard_stage_plan(const StagePlan& whole, const StageInput& sliced);

}  // namespace sb::pipeline
