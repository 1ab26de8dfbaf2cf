#pragma once
// What `servebench merge` adds to the merged sweep document (docs/distributed.md): `shards` (the
// count, the plan, every shard's own figures per stage, where its files were) and `merge_warnings`
// (late starts, clock skew, stragglers), both keys of ours beside vLLM's.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "results/shard_merge.hpp"

namespace sb::report {

// `paths`: each shard's sweep document, in shard order.
nlohmann::ordered_json shards_json(const results::MergedShards& m, const std::vector<std::string>& paths);

nlohmann::ordered_json merge_warnings_json(const results::MergedShards& m);

// "shard", "clock_skew", ... as the document writes the kind.
const char* to_string(results::ShardWarning w) noexcept;

// One line per warning, for the console ("warning: stage 1: shard 2 started 14.2 ms late ...").
std::string format_merge_warnings(const results::MergedShards& m);

}  // namespace sb::report
