#include "pipeline/stage_bounds.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace sb::pipeline {

std::size_t stage_request_count(const RunConfig& cfg, const StagePlan& plan) {
  const auto planned = static_cast<std::size_t>(std::max(plan.num_requests, 0));
  if (!cfg.stage_seconds || !plan.load.open_loop()) return planned;
  // vLLM's schedule puts the last of N arrivals at N / rate: N = rate x S fills the S seconds.
  const double arrivals = std::max(1.0, std::round(plan.load.request_rate * *cfg.stage_seconds));
  const std::size_t n = arrivals >= 1e9 ? static_cast<std::size_t>(1e9) : static_cast<std::size_t>(arrivals);
  return cfg.prompts_bound_stages ? std::min(n, planned) : n;
}

void bound_stage(const RunConfig& cfg, const StagePlan& plan, StageInput& in) {
  if (!cfg.stage_seconds || plan.load.open_loop()) return;  // open loop: the schedule is the bound
  in.issue_for_ns = static_cast<Nanos>(*cfg.stage_seconds * 1e9);
  in.issue_count = cfg.prompts_bound_stages ? in.requests.size() : kUntilDeadline;
}

std::string repeat_suffix(int repeat) { return repeat > 0 ? fmt::format("-r{}", repeat) : ""; }

}  // namespace sb::pipeline
