#include "pipeline/stage_input.hpp"

#include <fmt/format.h>

#include <string>
#include <utility>

#include "core/clock.hpp"
#include "load/ramp.hpp"
#include "load/schedule.hpp"
#include "pipeline/modelled_time.hpp"
#include "pipeline/shard_plan.hpp"
#include "pipeline/stage_bounds.hpp"

namespace sb::pipeline {

// `ordinal` numbers the stage across --repeats passes, so a later pass draws fresh prompts too.
StageWork stage_input(const RunConfig& cfg, const Prepared& p, const StagePlan& plan, int repeat, std::size_t ordinal) {
  StageWork work;
  work.workload = stage_workload(cfg, p, ordinal, static_cast<std::size_t>(plan.num_requests));
  const std::vector<RequestSpec>& specs = *work.workload.specs;
  StageInput& in = work.in;
  in.stage_index = plan.index;
  in.bodies = work.workload.bodies.get();
  const std::size_t n = stage_request_count(cfg, plan);  // --stage-seconds: S seconds of arrivals
  const std::size_t size = specs.size();
  const bool several = p.staircase.stages.size() > 1 || cfg.load.search || cfg.repeats > 1;
  const ScheduleParams sp{n, plan.load.request_rate, plan.load.burstiness, cfg.dataset.seed};
  const RampUp& ramp = cfg.load.ramp;
  std::vector<Nanos> offsets = ramp.kind == RampKind::none ? make_schedule(sp) : make_ramp_schedule(sp, ramp);
  to_wall_offsets(offsets, p.ctx.time_factor);  // planned in the modelled GPU's time
  in.requests.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    const RequestSpec& spec = specs[i % size];  // more arrivals than prompts: reused
    // Ids stay unique across stages: a server may reject a request id it has seen in flight.
    std::string id = (several ? fmt::format("{}-s{}", spec.request_id, plan.index) : spec.request_id) +
                     repeat_suffix(repeat);
    if (i >= size && !id.empty()) id += fmt::format("-c{}", i / size);
    in.requests.push_back({std::move(id), spec.prompt_tokens, spec.max_tokens, offsets[i],
                           static_cast<std::int64_t>(i % size)});
  }
  in.max_concurrency = plan.load.max_concurrency;
  bound_stage(cfg, plan, in);  // closed loop with --stage-seconds: the runner's duration bound
  if (in.issue_for_ns > 0) in.issue_for_ns = to_wall_ns(in.issue_for_ns, p.ctx.time_factor);
  if (cfg.shard.sharded()) work.global_index = slice_stage(cfg.shard, in);  // docs/distributed.md
  return work;
}

}  // namespace sb::pipeline
