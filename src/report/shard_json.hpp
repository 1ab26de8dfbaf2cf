#pragma once
// The `shard` object of a shard's sweep document (docs/distributed.md): which shard of which plan,
// and per stage its slice and when it started, so `servebench merge` can check the shards belong
// together and place every shard's records on one clock.
#include <nlohmann/json.hpp>

#include "load/shard.hpp"

namespace sb::report {

nlohmann::ordered_json shard_json(const ShardRecord& r);

}  // namespace sb::report
