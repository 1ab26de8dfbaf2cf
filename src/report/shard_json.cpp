#include "report/shard_json.hpp"

namespace sb::report {

using nlohmann::ordered_json;

namespace {

ordered_json unix_ns_or_null(std::int64_t ns) { return ns == 0 ? ordered_json(nullptr) : ordered_json(ns); }

}  // namespace

ordered_json shard_json(const ShardRecord& r) {
  ordered_json j;
  j["index"] = r.spec.index;
  j["count"] = r.spec.count;
  j["plan_hash"] = r.plan_hash;
  j["start_at_unix_ns"] = r.start_at_unix_ns ? ordered_json(*r.start_at_unix_ns) : ordered_json(nullptr);
  ordered_json stages = ordered_json::array();
  for (const ShardStageRecord& s : r.stages) {
    ordered_json st;
    st["stage_index"] = s.stage_index;
    st["plan_max_concurrency"] = s.plan_max_concurrency ? ordered_json(*s.plan_max_concurrency) : ordered_json(nullptr);
    st["max_concurrency"] = s.shard_max_concurrency > 0 ? ordered_json(s.shard_max_concurrency) : ordered_json(nullptr);
    st["requests"] = s.requests;
    st["plan_requests"] = s.plan_requests;
    st["planned_start_unix_ns"] = unix_ns_or_null(s.planned_start_unix_ns);
    st["t0_unix_ns"] = s.t0_unix_ns;
    st["clock_offset_ms"] = s.clock_offset_ms ? ordered_json(*s.clock_offset_ms) : ordered_json(nullptr);
    stages.push_back(std::move(st));
  }
  j["stages"] = std::move(stages);
  return j;
}

}  // namespace sb::report
