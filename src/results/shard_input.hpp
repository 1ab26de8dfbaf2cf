#pragma once
// One shard's outputs read back for `servebench merge` (docs/distributed.md): its sweep document's
// `shard` object and stages, and its per-request JSONL turned back into RequestRecords, so the
// merged statistics are vLLM's formulas over every request (metrics/summarize), not averages of
// per-shard percentiles. The JSONL keeps every time to the ns (ms as the shortest exact repr), so
// the records come back exactly. Parsers over text; every malformed input is a one-line
// sb::UserError naming the file (and the line).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "load/shard.hpp"
#include "metrics/request_record.hpp"
#include "metrics/stage_summary.hpp"

namespace sb::results {

struct ShardStageInput {
  std::size_t stage_index = 0;
  double load_value = 0;
  StageLoad plan_load;                     // the whole plan's rate, burstiness and limit
  int plan_requests = 0;
  int requests = 0;                        // this shard's slice
  std::int64_t planned_start_unix_ns = 0;  // 0: none (a shard that started on its own)
  std::int64_t t0_unix_ns = 0;
  std::optional<double> clock_offset_ms;   // shard clock − the shared folder's clock at the barrier
  std::optional<double> dispatch_lag_p99_ms;  // the shard's own (open loop)
  std::vector<RequestRecord> records;      // times relative to this shard's t0, index = the plan's
};

struct ShardInput {
  std::string path;                        // the sweep document
  ShardSpec spec;
  std::string plan_hash;
  std::optional<std::int64_t> start_at_unix_ns;
  nlohmann::ordered_json doc;              // the whole document (config, environment, context)
  std::vector<ShardStageInput> stages;     // in run order
};

// The document of one shard: its `shard` object and stages, no records yet. Throws sb::UserError
// "PATH: not a shard's sweep document (no `shard` object; run with --shard I/N)" and the like.
ShardInput parse_shard_doc(std::string_view text, const std::string& path);

// The per-request JSONL of a shard into the stages of `shard` (by `stage`: run-order index).
void add_shard_records(std::string_view jsonl, const std::string& path, ShardInput& shard);

// One JSONL line back into a record (times ns, token times from ttft + itl); `stage` gets its stage.
RequestRecord record_from_json(const nlohmann::json& j, std::size_t& stage);

}  // namespace sb::results
