#include "results/shard_merge.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "metrics/steady_window.hpp"
#include "metrics/summarize.hpp"

namespace sb::results {

namespace {

// The same plan, every shard once.
void check_whole(const std::vector<ShardInput>& shards) {
  if (shards.empty()) throw UserError("merge: no shard documents given");
  const ShardInput& first = shards.front();
  std::vector<const ShardInput*> by_index(static_cast<std::size_t>(first.spec.count), nullptr);
  for (const ShardInput& s : shards) {
    if (s.plan_hash != first.plan_hash || s.spec.count != first.spec.count)
      throw UserError(fmt::format("merge: {} is shard {}/{} of plan {}, but {} is of plan {} with {} shards: not one run",
                                  s.path, s.spec.index, s.spec.count, s.plan_hash, first.path, first.plan_hash,
                                  first.spec.count));
    const ShardInput*& slot = by_index[static_cast<std::size_t>(s.spec.index)];
    if (slot) throw UserError(fmt::format("merge: shard {} given twice ({} and {})", s.spec.index, slot->path, s.path));
    slot = &s;
    if (s.stages.size() != first.stages.size())
      throw UserError(fmt::format("merge: {} has {} stages, {} has {}: a shard stopped early", s.path, s.stages.size(),
                                  first.path, first.stages.size()));
  }
  std::vector<int> missing;
  for (std::size_t i = 0; i < by_index.size(); ++i)
    if (!by_index[i]) missing.push_back(static_cast<int>(i));
  if (!missing.empty())
    throw UserError(fmt::format("merge: shards {} of {} are missing (plan {})", fmt::join(missing, ", "),
                                first.spec.count, first.plan_hash));
}

// The stage's clock: the planned start all shards aimed at, else the first shard's start.
std::int64_t reference_start(const std::vector<ShardInput>& shards, std::size_t k) {
  std::int64_t planned = shards.front().stages[k].planned_start_unix_ns;
  std::int64_t earliest = shards.front().stages[k].t0_unix_ns;
  for (const ShardInput& s : shards) {
    if (s.stages[k].planned_start_unix_ns != planned) planned = 0;
    earliest = std::min(earliest, s.stages[k].t0_unix_ns);
  }
  return planned != 0 ? planned : earliest;
}

ShardStageFigures shard_figures(const ShardInput& s, const ShardStageInput& st, std::int64_t ref_unix_ns) {
  ShardStageFigures f;
  f.shard = s.spec.index;
  f.stage_index = st.stage_index;
  f.requests = st.requests;
  Nanos end = 0;
  for (const RequestRecord& r : st.records) {
    if (!r.was_sent) continue;
    const bool ok = r.ok() && !r.token_ns.empty();
    f.completed += ok ? 1 : 0;
    f.failed += ok ? 0 : 1;
    if (ok) f.output_tokens += r.output_tokens;
    end = std::max(end, r.done_ns);
  }
  f.duration_s = ns_to_s(end);
  if (f.duration_s > 0) {
    f.request_throughput = f.completed / f.duration_s;
    f.output_throughput = static_cast<double>(f.output_tokens) / f.duration_s;
  }
  f.start_offset_ms = static_cast<double>(st.t0_unix_ns - ref_unix_ns) / 1e6;
  f.clock_offset_ms = st.clock_offset_ms;
  f.dispatch_lag_p99_ms = st.dispatch_lag_p99_ms;
  return f;
}

void warn_stage(const std::vector<ShardStageFigures>& figs, const ShardMergeParams& p, MergedShards& out) {
  std::optional<double> lo, hi;
  for (const ShardStageFigures& f : figs) {
    if (f.start_offset_ms > p.late_start_ms)
      out.warnings.push_back({ShardWarning::late_start, f.stage_index, f.shard, f.start_offset_ms});
    if (f.dispatch_lag_p99_ms && *f.dispatch_lag_p99_ms > p.dispatch_lag_ms)
      out.warnings.push_back({ShardWarning::straggler, f.stage_index, f.shard, *f.dispatch_lag_p99_ms});
    if (!f.clock_offset_ms) continue;
    lo = std::min(lo.value_or(*f.clock_offset_ms), *f.clock_offset_ms);
    hi = std::max(hi.value_or(*f.clock_offset_ms), *f.clock_offset_ms);
  }
  if (lo && *hi - *lo > p.clock_skew_ms)
    out.warnings.push_back({ShardWarning::clock_skew, figs.front().stage_index, -1, *hi - *lo});
}

StageSummary merged_stage(const std::vector<ShardInput>& shards, std::size_t k, std::int64_t ref_unix_ns,
                          const ShardMergeParams& p) {
  const ShardStageInput& plan = shards.front().stages[k];
  std::vector<RequestRecord> all;
  for (const ShardInput& s : shards) {
    const Nanos shift = s.stages[k].t0_unix_ns - ref_unix_ns;  // onto the stage's one clock
    for (RequestRecord r : s.stages[k].records) {
      r.intended_ns += shift;
      r.sent_ns += shift;
      if (r.first_byte_ns >= 0) r.first_byte_ns += shift;
      r.done_ns += shift;
      if (r.slot_free_ns > 0) r.slot_free_ns += shift;
      r.token_ns.shift(shift);
      all.push_back(std::move(r));
    }
  }
  std::sort(all.begin(), all.end(), [](const RequestRecord& a, const RequestRecord& b) { return a.index < b.index; });
  SummarizeParams sp;
  sp.stage_index = plan.stage_index;
  sp.load = plan.plan_load;
  sp.num_prompts = plan.plan_requests;
  sp.percentiles = p.percentiles;
  sp.goodput_slo_ms = p.goodput_slo_ms;
  sp.anchor = ClockAnchor{0, ref_unix_ns};
  StageSummary s = summarize(all, sp);
  SteadyParams steady;
  steady.load = s.load;
  for (const auto& pv : s.ttft.percentiles_ms) steady.percentiles.push_back(pv.first);
  std::sort(steady.percentiles.begin(), steady.percentiles.end());
  steady.percentiles.erase(std::unique(steady.percentiles.begin(), steady.percentiles.end()), steady.percentiles.end());
  s.steady = steady_window(all, steady, s.request_throughput);
  return s;
}

}  // namespace

MergedShards merge_shards(const std::vector<ShardInput>& unordered, const ShardMergeParams& p) {
  check_whole(unordered);
  std::vector<ShardInput> shards = unordered;
  std::sort(shards.begin(), shards.end(), [](const ShardInput& a, const ShardInput& b) { return a.spec.index < b.spec.index; });
  MergedShards out;
  out.shard_count = shards.front().spec.count;
  out.plan_hash = shards.front().plan_hash;
  for (std::size_t k = 0; k < shards.front().stages.size(); ++k) {
    for (const ShardInput& s : shards)
      if (s.stages[k].stage_index != shards.front().stages[k].stage_index ||
          s.stages[k].load_value != shards.front().stages[k].load_value)
        throw UserError(fmt::format("merge: stage {} of {} does not match stage {} of {}", k, s.path, k, shards.front().path));
    const std::int64_t ref = reference_start(shards, k);
    std::vector<ShardStageFigures> figs;
    for (const ShardInput& s : shards) figs.push_back(shard_figures(s, s.stages[k], ref));
    warn_stage(figs, p, out);
    out.per_shard.insert(out.per_shard.end(), figs.begin(), figs.end());
    out.stages.push_back(merged_stage(shards, k, ref, p));
  }
  return out;
}

}  // namespace sb::results
