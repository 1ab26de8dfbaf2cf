#include "load/shard_sizing.hpp"

#include <algorithm>
#include <cmath>

namespace sb {

namespace {

constexpr double kBaseMib = 256;          // the process, the dataset and its bodies
constexpr double kStreamKib = 64;         // a connection's buffers with room (measured ~9 KiB)
constexpr double kRecordBytes = 512;      // a record without its token times

}  // namespace

ShardResources size_shard(const ShardLoadEstimate& e, const std::optional<ClientCeiling>& ceiling) {
  ShardResources r;
  const int n = std::max(1, e.shards);
  r.events_per_cpu_s = ceiling && ceiling->events_per_cpu_s > 0 ? ceiling->events_per_cpu_s : kDefaultEventsPerCpuS;
  const double per_shard = e.tokens_per_s / n;
  r.cpu_cores = std::max(1, static_cast<int>(std::ceil(per_shard / (r.events_per_cpu_s * kShardCpuHeadroom))));
  const double streams = std::ceil(static_cast<double>(e.streams) / n);
  const double records = std::ceil(static_cast<double>(e.requests_per_stage) / n);
  const double bytes = records * (kRecordBytes + 8.0 * e.output_tokens) + streams * kStreamKib * 1024;
  r.memory_mib = static_cast<std::int64_t>(std::ceil(kBaseMib + bytes / (1024.0 * 1024.0)));
  return r;
}

}  // namespace sb
