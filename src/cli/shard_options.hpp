#pragma once
// The shard flags of `servebench run` (docs/distributed.md): --shard I/N, or --shards N (or
// SERVEBENCH_SHARDS) with the index from JOB_COMPLETION_INDEX as a Kubernetes Indexed Job sets it;
// --start-at, --barrier-dir, --barrier-timeout-s.
#include "cli/option_reader.hpp"
#include "cli/run_options.hpp"

namespace sb::cli {

void read_shard(const OptionReader& r, const EnvLookup& env, RunConfig& c);

}  // namespace sb::cli
