#pragma once
// Turns `--concurrency 1 4 8 …` or `--request-rate 2 4 8 …` into the list of stages to run; with
// `--concurrency auto` / `--request-rate auto` the stages are chosen as the run goes (the policy is
// pipeline/knee_search's) and each is built here by plan_stage.
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "core/problem.hpp"
#include "load/ramp.hpp"
#include "metrics/stage_summary.hpp"

namespace sb {

enum class LoadMode { concurrency, request_rate };

// The load of a run: one stage per value of one list; the requests per stage are the dataset's.
struct StaircaseParams {
  std::vector<int> concurrency;         // --concurrency values (empty if not given)
  std::vector<double> request_rates{std::numeric_limits<double>::infinity()};  // --request-rate values
  std::optional<int> max_concurrency;   // --max-concurrency (applies to rate stages)
  double burstiness = 1.0;              // gamma shape of the gaps, inf = constant spacing
  RampUp ramp;                          // --ramp-up-*: each stage's rate ramps instead (needs rate inf)
  // --concurrency auto / --request-rate auto: the swept quantity, whose list is then left empty;
  // nullopt = the fixed lists above.
  std::optional<LoadMode> search{};
  double knee_precision = 0.1;          // --knee-precision: stop when (hi - lo) / lo <= this, in (0, 1)
  int max_stages = 12;                  // --max-stages: the search's stage budget, >= 3
};

struct StagePlan {
  std::size_t index = 0;
  StageLoad load;                       // rate, burstiness, concurrency limit
  int num_requests = 0;
  double load_value = 0;                // the swept value: concurrency or rate (may be inf)
};

struct Staircase {
  LoadMode mode = LoadMode::request_rate;
  std::vector<StagePlan> stages;  // empty when the stages are searched (StaircaseParams::search)
};

// Every problem with the parameters, e.g. both lists with more than one value; ramp's as "ramp.*".
Problems validate(const StaircaseParams& p);
// The same, plus what needs the requests per stage: a finite rate whose schedule (last arrival at
// num_requests / rate s) would overflow int64 ns, e.g. --request-rate 1e-300.
Problems validate(const StaircaseParams& p, int num_requests);

// `num_requests` (> 0) per stage. Throws sb::UserError listing validate(p, num_requests)'s problems.
Staircase plan_staircase(const StaircaseParams& p, int num_requests);

// One stage of a searched staircase (p.search set): `load` is the concurrency or the rate (under
// p.max_concurrency), `index` its place in run order.
StagePlan plan_stage(const StaircaseParams& p, int num_requests, double load, std::size_t index);

const char* to_string(LoadMode m) noexcept;

}  // namespace sb
