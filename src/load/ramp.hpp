#pragma once
// Ramp-up of the request rate across one stage (vLLM benchmarks/serve.py `--ramp-up-strategy`; docs/run.md):
// request i of N gets rate r_i, with progress p_i = i / max(N-1, 1):
//   linear       r_i = start + (end - start) * p_i
//   exponential  r_i = start * (end / start) ^ p_i
#include <cstddef>

#include "core/problem.hpp"

namespace sb {

enum class RampKind { none, linear, exponential };

struct RampUp {
  RampKind kind = RampKind::none;
  double start_rps = 0;  // >= 0 (linear), > 0 (exponential)
  double end_rps = 0;    // >= start_rps
};

// Every problem with a ramp (none when kind is none): fields start_rps, end_rps.
Problems validate(const RampUp& ramp);

// Rate of request i out of n (req/s). Only meaningful when ramp.kind != none.
double ramp_rate(const RampUp& ramp, std::size_t i, std::size_t n) noexcept;

}  // namespace sb
