#pragma once
// Resource requests of one shard's pod (servebench k8s-job, docs/distributed.md), from the client's
// own ceiling (docs/selftest.md): enough cores that the shard's share of the token events stays at
// half the ceiling per core (the run flags a stage above 70 %), and memory for its streams and the
// records a stage keeps.
#include <cstdint>
#include <optional>

#include "metrics/client_use.hpp"

namespace sb {

struct ShardLoadEstimate {
  int shards = 1;
  double tokens_per_s = 0;   // the whole run's peak token events/s (all shards)
  int streams = 0;           // the whole run's peak concurrent streams (0: unknown)
  int requests_per_stage = 0;
  int output_tokens = 128;   // per request
};

struct ShardResources {
  int cpu_cores = 1;              // request = limit; also the shard's --client-threads
  std::int64_t memory_mib = 256;  // request; the limit is twice it
  double events_per_cpu_s = 0;    // the ceiling it was sized from
};

// The ceiling's events per CPU-second, else kDefaultEventsPerCpuS (a conservative figure for one
// core of a cloud VM; docs/distributed.md) when none is known.
inline constexpr double kDefaultEventsPerCpuS = 100000;
inline constexpr double kShardCpuHeadroom = 0.5;

ShardResources size_shard(const ShardLoadEstimate& e, const std::optional<ClientCeiling>& ceiling);

}  // namespace sb
