#include "report/shard_merge_json.hpp"

#include <fmt/format.h>

namespace sb::report {

using nlohmann::ordered_json;

namespace {

ordered_json optional_ms(const std::optional<double>& v) { return v ? ordered_json(*v) : ordered_json(nullptr); }

ordered_json figures_json(const results::ShardStageFigures& f) {
  ordered_json j;
  j["shard"] = f.shard;
  j["requests"] = f.requests;
  j["completed"] = f.completed;
  j["failed"] = f.failed;
  j["total_output_tokens"] = f.output_tokens;
  j["duration"] = f.duration_s;
  j["request_throughput"] = f.request_throughput;
  j["output_throughput"] = f.output_throughput;
  j["start_offset_ms"] = f.start_offset_ms;
  j["clock_offset_ms"] = optional_ms(f.clock_offset_ms);
  j["dispatch_lag_p99_ms"] = optional_ms(f.dispatch_lag_p99_ms);
  return j;
}

}  // namespace

const char* to_string(results::ShardWarning w) noexcept {
  switch (w) {
    case results::ShardWarning::late_start: return "late_start";
    case results::ShardWarning::clock_skew: return "clock_skew";
    case results::ShardWarning::straggler: return "straggler";
  }
  return "unknown";
}

ordered_json shards_json(const results::MergedShards& m, const std::vector<std::string>& paths) {
  ordered_json j;
  j["count"] = m.shard_count;
  j["plan_hash"] = m.plan_hash;
  j["documents"] = paths;
  ordered_json stages = ordered_json::array();
  for (const StageSummary& s : m.stages) {
    ordered_json per = ordered_json::array();
    for (const results::ShardStageFigures& f : m.per_shard)
      if (f.stage_index == s.stage_index) per.push_back(figures_json(f));
    stages.push_back(ordered_json{{"stage_index", s.stage_index}, {"shards", std::move(per)}});
  }
  j["stages"] = std::move(stages);
  return j;
}

ordered_json merge_warnings_json(const results::MergedShards& m) {
  ordered_json arr = ordered_json::array();
  for (const results::ShardWarningAt& w : m.warnings)
    arr.push_back(ordered_json{{"kind", to_string(w.kind)},
                               {"stage_index", w.stage_index},
                               {"shard", w.shard < 0 ? ordered_json(nullptr) : ordered_json(w.shard)},
                               {"value_ms", w.value_ms}});
  return arr;
}

std::string format_merge_warnings(const results::MergedShards& m) {
  std::string out;
  for (const results::ShardWarningAt& w : m.warnings) {
    switch (w.kind) {
      case results::ShardWarning::late_start:
        out += fmt::format("warning: stage {}: shard {} started {:.1f} ms after the planned start (its latencies and "
                           "the stage's throughput include the gap)\n", w.stage_index, w.shard, w.value_ms);
        break;
      case results::ShardWarning::clock_skew:
        out += fmt::format("warning: stage {}: the shards' clocks disagree by {:.1f} ms (seen against the shared "
                           "folder's clock at the barrier): sync them (chrony/NTP) for aligned starts\n",
                           w.stage_index, w.value_ms);
        break;
      case results::ShardWarning::straggler:
        out += fmt::format("warning: stage {}: shard {} fell behind its schedule (dispatch lag p99 {:.1f} ms): give "
                           "its pod more CPU or use more shards\n", w.stage_index, w.shard, w.value_ms);
        break;
    }
  }
  return out;
}

}  // namespace sb::report
