#include "load/schedule.hpp"

#include <cmath>
#include <random>

#include <fmt/format.h>

#include "core/error.hpp"

namespace sb {
namespace {

void validate(const ScheduleParams& p) {
  if (!(p.request_rate > 0)) {
    throw UserError(fmt::format("--request-rate: must be > 0 or inf, got {}", p.request_rate));
  }
  if (!(p.burstiness > 0)) {
    throw UserError(fmt::format("--burstiness: must be > 0 or inf, got {}", p.burstiness));
  }
}

// Cumulative arrival times in seconds (vLLM benchmarks/serve.py get_request) for per-request rates rate_of(i).
// Shape k, scale 1/(rate*k): mean gap 1/rate, coefficient of variation 1/sqrt(k).
template <class RateOf>
std::vector<double> cumulative_arrivals_s(const ScheduleParams& p, RateOf rate_of) {
  std::vector<double> arrivals_s(p.num_requests);
  std::mt19937_64 rng(p.seed);
  double sum_s = 0;
  for (std::size_t i = 0; i < p.num_requests; ++i) {
    const double rate = rate_of(i);
    if (std::isinf(rate) || rate <= 0) {
      // inf: everything at once. 0 (a linear ramp starting at 0 rps): no wait rather than forever.
    } else if (std::isinf(p.burstiness)) {
      sum_s += 1.0 / rate;
    } else {
      sum_s += std::gamma_distribution<double>(p.burstiness, 1.0 / (rate * p.burstiness))(rng);
    }
    arrivals_s[i] = sum_s;
  }
  return arrivals_s;
}

std::vector<Nanos> to_offsets_ns(const std::vector<double>& arrivals_s, double scale) {
  std::vector<Nanos> offsets_ns(arrivals_s.size());
  for (std::size_t i = 0; i < arrivals_s.size(); ++i) {
    offsets_ns[i] = std::llround(arrivals_s[i] * scale * 1e9);
  }
  return offsets_ns;
}

}  // namespace

std::vector<Nanos> make_schedule(const ScheduleParams& p) {
  validate(p);
  if (p.num_requests == 0 || std::isinf(p.request_rate)) return std::vector<Nanos>(p.num_requests, 0);

  const auto arrivals_s = cumulative_arrivals_s(p, [&](std::size_t) { return p.request_rate; });
  // vLLM normalises so the last arrival lands exactly at N/rate: removes seed-to-seed
  // throughput noise at the cost of a not-quite-Poisson process.
  const double end_s = static_cast<double>(p.num_requests) / p.request_rate;
  const double last_s = arrivals_s.back();
  std::vector<Nanos> offsets_ns = to_offsets_ns(arrivals_s, last_s > 0 ? end_s / last_s : 1.0);
  // Pin the end point exactly: rounding of arrivals*scale may differ by one ns.
  offsets_ns.back() = std::llround(end_s * 1e9);
  for (std::size_t i = offsets_ns.size() - 1; i > 0; --i) {
    if (offsets_ns[i - 1] > offsets_ns[i]) offsets_ns[i - 1] = offsets_ns[i];
  }
  return offsets_ns;
}

std::vector<Nanos> make_ramp_schedule(const ScheduleParams& p, const RampUp& ramp) {
  if (ramp.kind == RampKind::none) return make_schedule(p);
  throw_if_problems(validate(ramp));
  if (!(p.burstiness > 0)) {
    throw UserError(fmt::format("--burstiness: must be > 0 or inf, got {}", p.burstiness));
  }
  const auto arrivals_s = cumulative_arrivals_s(
      p, [&](std::size_t i) { return ramp_rate(ramp, i, p.num_requests); });
  return to_offsets_ns(arrivals_s, 1.0);
}

}  // namespace sb
