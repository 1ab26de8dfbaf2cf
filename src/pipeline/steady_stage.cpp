#include "pipeline/steady_stage.hpp"

#include <algorithm>
#include <cmath>

#include "metrics/steady_window.hpp"

namespace sb::pipeline {

void add_steady_state(const RunConfig& cfg, const StageOutput& out, StageSummary& s) {
  SteadyParams sp;
  sp.load = s.load;
  sp.issue_end_ns = out.issue_end_ns;
  // Bounded by --stage-seconds only when the time ran out before the prompt count did.
  if (cfg.stage_seconds && !s.load.open_loop()) sp.duration_bounded = out.issue_end_ns >= 0;
  if (cfg.stage_seconds && s.load.open_loop())
    sp.duration_bounded = !cfg.prompts_bound_stages || std::round(s.load.request_rate * *cfg.stage_seconds) <= s.num_prompts;
  for (double q : cfg.metric_percentiles) sp.percentiles.push_back(q);
  std::sort(sp.percentiles.begin(), sp.percentiles.end());
  sp.percentiles.erase(std::unique(sp.percentiles.begin(), sp.percentiles.end()), sp.percentiles.end());
  s.steady = steady_window(out.records, sp, s.request_throughput);
}

}  // namespace sb::pipeline
