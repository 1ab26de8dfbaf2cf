#pragma once
// Aligns the shards of one run at each stage boundary through files in a folder they all see (a
// Kubernetes ReadWriteMany volume, docs/distributed.md): shard I writes DIR/barrier/NAME/shard-I.done
// holding the run's key and the instant it arrived (unix ns), waits until every shard's file of the same run is
// there, and all compute the same start: the latest instant written plus a margin. So every shard
// starts the next stage at one planned wall-clock time, however late each one saw the last file.
#include <cstdint>
#include <optional>
#include <stop_token>
#include <string>

#include "core/clock.hpp"
#include "load/shard.hpp"

namespace sb::pipeline {

struct BarrierParams {
  std::string dir;              // the shared folder (files go under DIR/barrier/)
  ShardSpec shard;
  std::string run_key;          // plan hash + start: files of another run are not counted
  double timeout_s = 600;       // from this shard's arrival
  Nanos margin_ns = 250'000'000;  // after the last arrival: covers every shard's polling delay
  Nanos poll_ns = 5'000'000;
};

struct BarrierPass {
  std::int64_t start_unix_ns = 0;  // the common start: the latest arrival + margin
  // This shard's clock minus the shared folder's (its file's mtime, stamped by the file server on a
  // network volume): comparable across shards, so merge can tell a skewed clock. nullopt: no mtime.
  std::optional<double> clock_offset_ms;
};

class StageBarrier {
 public:
  explicit StageBarrier(BarrierParams p);

  // Writes this shard's file for `name` (atomically: temp + rename) with `unix_ns`, waits for the
  // others, and returns the common start; nullopt when `stop` was requested. Throws
  // sb::UserError "stage barrier NAME: shards 1, 3 of 4 did not arrive within S s (DIR)".
  std::optional<BarrierPass> arrive(const std::string& name, std::stop_token stop);

 private:
  BarrierParams p_;
  std::int64_t oldest_unix_ns_;  // arrivals before this one's start minus the timeout are stale
};

// Sleeps until the wall-clock instant `unix_ns` (steady deadline, so a clock step does not stretch
// it). Returns false when `stop` came first.
bool sleep_until_unix(std::int64_t unix_ns, std::stop_token stop);

}  // namespace sb::pipeline
