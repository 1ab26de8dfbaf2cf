#pragma once
// Absolute send schedule of one stage (as vLLM benchmarks/serve.py; docs/run.md "Staircase"): gamma
// inter-arrival gaps with shape k = burstiness and mean 1/rate, cumulative, normalised so the last
// arrival is at N/rate seconds.
// rate = inf -> every offset 0; burstiness = inf -> constant spacing. Never summed sleeps.
// make_ramp_schedule: request i uses the ramp's rate r_i instead, and nothing is normalised (vLLM).
#include <cstdint>
#include <vector>

#include "core/clock.hpp"
#include "load/ramp.hpp"

namespace sb {

struct ScheduleParams {
  std::size_t num_requests = 0;
  double request_rate = 0;  // req/s, may be +inf
  double burstiness = 1.0;  // > 0, may be +inf
  std::uint64_t seed = 0;
};

// Offsets from the stage's t0 in ns, non-decreasing, one per request.
std::vector<Nanos> make_schedule(const ScheduleParams& p);

// Same with a ramp-up (ramp.kind != none); p.request_rate is ignored. Throws sb::UserError
// listing validate(ramp)'s problems.
std::vector<Nanos> make_ramp_schedule(const ScheduleParams& p, const RampUp& ramp);

}  // namespace sb
