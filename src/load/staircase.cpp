#include "load/staircase.hpp"

#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "core/clock.hpp"
#include "core/error.hpp"

namespace sb {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

StagePlan make_stage(const StaircaseParams& p, int num_requests, double rate, std::optional<int> limit,
                     double value) {
  StagePlan s;
  s.load.request_rate = rate;
  s.load.burstiness = p.burstiness;
  s.load.max_concurrency = limit;
  s.num_requests = num_requests;
  s.load_value = value;
  return s;
}

// The searched staircase: `auto` stands alone, and the precision and budget can end a search.
void validate_search(const StaircaseParams& p, Problems& out) {
  if (!p.search) return;
  if (*p.search == LoadMode::concurrency) {
    if (!p.concurrency.empty()) out.push_back({"concurrency", "auto cannot be mixed with values"});
    if (p.request_rates.size() > 1)
      out.push_back({"request_rates", "takes one value (the rate of every stage) with {concurrency} auto"});
  } else {
    if (!p.request_rates.empty()) out.push_back({"request_rates", "auto cannot be mixed with values"});
    if (!p.concurrency.empty())
      out.push_back({"concurrency", "cannot go with {request_rates} auto; {max_concurrency} limits every rate stage"});
    if (p.ramp.kind != RampKind::none) out.push_back({"request_rates", "auto cannot be combined with {ramp.kind}"});
  }
  if (!(p.knee_precision > 0 && p.knee_precision < 1))
    out.push_back({"knee_precision", fmt::format("must be in (0, 1), e.g. 10% or 0.1, got {}", p.knee_precision)});
  if (p.max_stages < 3)
    out.push_back({"max_stages", fmt::format("must be >= 3 (a plateau needs two stages, a bracket one more), got {}",
                                             p.max_stages)});
}

}  // namespace

Problems validate(const StaircaseParams& p) {
  Problems out;
  validate_search(p, out);
  if (p.concurrency.size() > 1 && p.request_rates.size() > 1) {
    out.push_back({"concurrency", "{request_rates} lists several values too: only one of them may (one stage per "
                                  "value); give the other a single value"});
  }
  for (int c : p.concurrency) {
    if (c <= 0) out.push_back({"concurrency", fmt::format("values must be > 0, got {}", c)});
  }
  for (double r : p.request_rates) {
    if (!(r > 0)) out.push_back({"request_rates", fmt::format("values must be > 0 or inf, got {}", r)});
  }
  if (p.ramp.kind != RampKind::none) {
    for (double r : p.request_rates) {
      if (!std::isinf(r)) {
        out.push_back({"request_rates", "cannot be combined with {ramp.kind} (leave it at inf)"});
        break;
      }
    }
  }
  if (p.max_concurrency && *p.max_concurrency <= 0) {
    out.push_back({"max_concurrency", fmt::format("must be > 0, got {}", *p.max_concurrency)});
  }
  if (p.max_concurrency && (!p.concurrency.empty() || p.search == LoadMode::concurrency)) {
    out.push_back({"max_concurrency", "{concurrency} sets the concurrency limit too; use one"});
  }
  if (!(p.burstiness > 0)) out.push_back({"burstiness", fmt::format("must be > 0 or inf, got {}", p.burstiness)});
  for (Problem& q : nest_problems(validate(p.ramp), "ramp")) out.push_back(std::move(q));
  return out;
}

Problems validate(const StaircaseParams& p, int num_requests) {
  Problems out = validate(p);
  // The schedule is int64 ns from t0 and its last arrival is at N/rate s (load/schedule.hpp).
  const double max_s = static_cast<double>(std::numeric_limits<Nanos>::max()) / 1e9;
  for (double r : p.request_rates) {
    if (!(r > 0) || std::isinf(r) || num_requests <= 0 || num_requests / r < max_s) continue;
    out.push_back({"request_rates", fmt::format("{:g} req/s for {} requests puts the last one {:.3g} s after the "
                                                "start, beyond the clock's range (292 years); use at least {:.2g}",
                                                r, num_requests, num_requests / r, 2 * num_requests / max_s)});
  }
  return out;
}

Staircase plan_staircase(const StaircaseParams& p, int num_requests) {
  throw_if_problems(validate(p, num_requests));
  if (num_requests <= 0) throw UserError(fmt::format("a stage needs requests, got {}", num_requests));
  Staircase out;
  if (p.search) {
    out.mode = *p.search;
    return out;
  }
  const bool sweep_rates = p.request_rates.size() > 1 || p.concurrency.empty();
  if (sweep_rates) {
    out.mode = LoadMode::request_rate;
    // A single --concurrency value next to a rate list acts as the limit of every stage.
    std::optional<int> limit = p.concurrency.empty() ? p.max_concurrency : p.concurrency.front();
    std::vector<double> rates = p.request_rates.empty() ? std::vector<double>{kInf} : p.request_rates;
    for (double r : rates) out.stages.push_back(make_stage(p, num_requests, r, limit, r));
  } else {
    out.mode = LoadMode::concurrency;
    const double rate = p.request_rates.empty() ? kInf : p.request_rates.front();
    for (int c : p.concurrency) out.stages.push_back(make_stage(p, num_requests, rate, c, c));
  }
  for (std::size_t i = 0; i < out.stages.size(); ++i) out.stages[i].index = i;
  return out;
}

StagePlan plan_stage(const StaircaseParams& p, int num_requests, double load, std::size_t index) {
  StagePlan s;
  if (p.search == LoadMode::request_rate) {
    s = make_stage(p, num_requests, load, p.max_concurrency, load);
  } else {
    const double rate = p.request_rates.empty() ? kInf : p.request_rates.front();
    s = make_stage(p, num_requests, rate, static_cast<int>(std::lround(load)), load);
  }
  s.index = index;
  return s;
}

const char* to_string(LoadMode m) noexcept {
  switch (m) {
    case LoadMode::concurrency: return "concurrency";
    case LoadMode::request_rate: return "request_rate";
  }
  return "unknown";
}

}  // namespace sb
