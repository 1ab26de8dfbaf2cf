#include "load/staircase.hpp"

#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "core/error.hpp"

namespace sb {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

void validate(const StaircaseParams& p) {
  if (p.concurrency.size() > 1 && p.request_rates.size() > 1) {
    throw UserError(
        "--concurrency and --request-rate: only one of them may list several values (one stage per "
        "value); give the other a single value");
  }
  for (int c : p.concurrency) {
    if (c <= 0) throw UserError(fmt::format("--concurrency: values must be > 0, got {}", c));
  }
  for (double r : p.request_rates) {
    if (!(r > 0)) throw UserError(fmt::format("--request-rate: values must be > 0 or inf, got {}", r));
  }
  if (p.max_concurrency && *p.max_concurrency <= 0) {
    throw UserError(fmt::format("--max-concurrency: must be > 0, got {}", *p.max_concurrency));
  }
  if (p.max_concurrency && !p.concurrency.empty()) {
    throw UserError("--concurrency and --max-concurrency: both set the concurrency limit; use one");
  }
  if (!(p.burstiness > 0)) {
    throw UserError(fmt::format("--burstiness: must be > 0 or inf, got {}", p.burstiness));
  }
  if (p.num_prompts <= 0) {
    throw UserError(fmt::format("--num-prompts: must be > 0, got {}", p.num_prompts));
  }
}

StagePlan make_stage(const StaircaseParams& p, double rate, std::optional<int> limit, double value) {
  StagePlan s;
  s.load.request_rate = rate;
  s.load.burstiness = p.burstiness;
  s.load.max_concurrency = limit;
  s.num_requests = p.num_prompts;
  s.load_value = value;
  return s;
}

}  // namespace

Staircase plan_staircase(const StaircaseParams& p) {
  validate(p);
  Staircase out;
  const bool sweep_rates = p.request_rates.size() > 1 || p.concurrency.empty();
  if (sweep_rates) {
    out.mode = LoadMode::request_rate;
    // A single --concurrency value next to a rate list acts as the limit of every stage.
    std::optional<int> limit = p.concurrency.empty() ? p.max_concurrency : p.concurrency.front();
    std::vector<double> rates = p.request_rates.empty() ? std::vector<double>{kInf} : p.request_rates;
    for (double r : rates) out.stages.push_back(make_stage(p, r, limit, r));
  } else {
    out.mode = LoadMode::concurrency;
    const double rate = p.request_rates.empty() ? kInf : p.request_rates.front();
    for (int c : p.concurrency) out.stages.push_back(make_stage(p, rate, c, c));
  }
  for (std::size_t i = 0; i < out.stages.size(); ++i) out.stages[i].index = i;
  return out;
}

const char* to_string(LoadMode m) noexcept {
  switch (m) {
    case LoadMode::concurrency: return "concurrency";
    case LoadMode::request_rate: return "request_rate";
  }
  return "unknown";
}

}  // namespace sb
