#pragma once
// `servebench merge` as a library call (docs/distributed.md): reads every shard's sweep document and
// per-request JSONL, merges them (results/shard_merge.hpp) into one sweep document shaped as a
// single run's (vLLM keys recomputed from all records, `shards` and `merge_warnings` ours), analyses
// it as a run is analysed (knee, regions), and writes it.
#include <optional>
#include <string>
#include <vector>

#include "pipeline/run_analysis.hpp"
#include "results/shard_merge.hpp"

namespace sb::pipeline {

struct MergeConfig {
  std::vector<std::string> inputs;  // shard sweep documents, or folders holding them
  std::string output_json;          // the merged sweep document
};

struct MergeOutcome {
  results::MergedShards merged;
  std::vector<std::string> documents;  // the shards' documents, in shard order
  std::optional<AnalysedRun> analysis; // 2 or more stages
  LoadMode load_mode = LoadMode::request_rate;
};

// Throws sb::UserError (one line) for unreadable or malformed files, shards that are not one run,
// and an output that cannot be written.
MergeOutcome merge_shard_files(const MergeConfig& cfg);

}  // namespace sb::pipeline
