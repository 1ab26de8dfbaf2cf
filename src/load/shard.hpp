#pragma once
// One shard's part of a run split over N client processes (docs/distributed.md): every shard
// computes the whole plan (the same seeded schedule and prompts) and keeps its own requests, so the
// union of the shards' requests is the single-process run's, request for request.
//  - Concurrency slots are dealt round-robin: slot s of c belongs to shard s % N, so shard I has
//    c / N slots plus one of the c % N remainder slots when I < c % N.
//  - Requests follow the slots: with a limit c, request i belongs to the owner of slot i % c (each
//    shard gets prompts in proportion to its slots); without a limit, request i belongs to i % N.
// Pure functions; the pipeline applies them to each stage's request list.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/problem.hpp"

namespace sb {

struct ShardSpec {
  int index = 0;  // I, 0-based
  int count = 1;  // N; 1 = not sharded

  bool sharded() const noexcept { return count > 1; }
};

// count >= 1 and 0 <= index < count, as "shard.count" / "shard.index".
Problems validate(const ShardSpec& s);

// "I/N" -> spec; nullopt unless two integers with 0 <= I < N.
std::optional<ShardSpec> parse_shard(std::string_view text);

// Shard I's slots of a limit of c: c / N, plus 1 when I < c % N.
int shard_concurrency(int limit, const ShardSpec& s) noexcept;

// The shard that sends request i of a stage (limit: the stage's whole concurrency limit, if any).
int shard_of_request(std::size_t i, std::optional<int> limit, int count) noexcept;

// Shard s's requests among n, ascending.
std::vector<std::size_t> shard_requests(std::size_t n, std::optional<int> limit, const ShardSpec& s);

// FNV-1a over bytes, for the plan hash every shard computes and merge compares.
class PlanHasher {
 public:
  void add(std::string_view bytes) noexcept;
  void add(std::int64_t v) noexcept;
  void add(double v) noexcept;  // by bit pattern: equal plans hash equal, whatever printing does
  std::uint64_t value() const noexcept { return h_; }
  std::string hex() const;      // 16 lower-case hex digits

 private:
  std::uint64_t h_ = 0xcbf29ce484222325ULL;
};

// What a shard records about itself (sweep document `shard`, docs/distributed.md).
struct ShardStageRecord {
  std::size_t stage_index = 0;
  std::optional<int> plan_max_concurrency;  // the whole run's limit of the stage (the shard ran its share)
  int shard_max_concurrency = 0;            // its share; 0 = no limit
  int requests = 0;                         // requests of the stage this shard sent (its slice)
  int plan_requests = 0;                    // the stage's requests in the whole plan
  std::int64_t planned_start_unix_ns = 0;   // the aligned start (--start-at or the barrier); 0 = none
  std::int64_t t0_unix_ns = 0;              // the instant this shard's stage started
  std::optional<double> clock_offset_ms;    // this shard's clock − the shared folder's, at the barrier
};

struct ShardRecord {
  ShardSpec spec;
  std::string plan_hash;                    // PlanHasher::hex of the plan
  std::optional<std::int64_t> start_at_unix_ns;  // --start-at
  std::vector<ShardStageRecord> stages;     // in run order
};

}  // namespace sb
