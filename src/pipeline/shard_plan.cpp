#include "pipeline/shard_plan.hpp"

#include <fmt/format.h>

#include <cmath>

namespace sb::pipeline {

namespace {

// A stage of concurrency c below the shard count would leave shards without a slot.
void check_limits(const RunConfig& c, Problems& out) {
  const int n = c.shard.count;
  for (const int v : c.load.concurrency)
    if (v < n)
      out.push_back({"load.concurrency", fmt::format("{} is below the {} shards: every shard needs at least one slot", v, n)});
  if (c.load.max_concurrency && *c.load.max_concurrency < n)
    out.push_back({"load.max_concurrency",
                   fmt::format("{} is below the {} shards: every shard needs at least one slot", *c.load.max_concurrency, n)});
}

}  // namespace

Problems validate_shard(const RunConfig& c) {
  Problems out = nest_problems(validate(c.shard), "shard");
  if (!(c.barrier_timeout_s > 0)) out.push_back({"barrier_timeout_s", "must be > 0 seconds"});
  if (!c.shard.sharded() || !out.empty()) return out;
  if (c.load.search)
    out.push_back({"shard.count", "cannot split a searched staircase (auto): each shard would choose its own stages"});
  if (c.repeats > 1)
    out.push_back({"shard.count", "cannot split --repeats (the records do not say their pass); run each pass as its own job"});
  if (c.stage_seconds)
    out.push_back({"shard.count", "cannot split duration-bound stages (--stage-seconds): the union would not be one plan"});
  if (c.output_json.empty() || c.requests_jsonl.empty())
    out.push_back({"shard.count", "needs --output-json (servebench merge reads each shard's sweep document and records)"});
  check_limits(c, out);
  return out;
}

std::string plan_hash(const RunConfig& cfg, const Prepared& p) {
  PlanHasher h;
  h.add(static_cast<std::int64_t>(p.staircase.mode));
  for (const StagePlan& s : p.staircase.stages) {
    h.add(s.load_value);
    h.add(s.load.request_rate);
    h.add(s.load.burstiness);
    h.add(static_cast<std::int64_t>(s.load.max_concurrency.value_or(0)));
    h.add(static_cast<std::int64_t>(s.num_requests));
  }
  const RampUp& r = cfg.load.ramp;
  h.add(static_cast<std::int64_t>(r.kind));
  h.add(r.start_rps);
  h.add(r.end_rps);
  h.add(static_cast<std::int64_t>(cfg.dataset.seed));
  h.add(std::string_view(cfg.dataset.name));
  h.add(static_cast<std::int64_t>(cfg.repeats));
  h.add(static_cast<std::int64_t>(cfg.shard.count));
  for (const std::string& body : p.bodies) h.add(std::string_view(body));
  return h.hex();
}

std::vector<std::uint32_t> slice_stage(const ShardSpec& s, StageInput& in) {
  const std::vector<std::size_t> mine = shard_requests(in.requests.size(), in.max_concurrency, s);
  std::vector<StageRequest> kept;
  std::vector<std::uint32_t> global;
  kept.reserve(mine.size());
  global.reserve(mine.size());
  for (const std::size_t i : mine) {
    StageRequest r = std::move(in.requests[i]);
    // Its body stays the one the whole plan gives request i.
    if (r.body_index < 0) r.body_index = static_cast<std::int64_t>(i);
    kept.push_back(std::move(r));
    global.push_back(static_cast<std::uint32_t>(i));
  }
  in.requests = std::move(kept);
  if (in.max_concurrency) in.max_concurrency = shard_concurrency(*in.max_concurrency, s);
  return global;
}

StagePlan shard_stage_plan(const StagePlan& whole, const StageInput& sliced) {
  StagePlan own = whole;
  own.num_requests = static_cast<int>(sliced.requests.size());
  own.load.max_concurrency = sliced.max_concurrency;
  return own;
}

}  // namespace sb::pipeline
