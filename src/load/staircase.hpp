#pragma once
// Turns `--concurrency 1 4 8 …` or `--request-rate 2 4 8 …` into the list of stages to run.
#include <optional>
#include <string>
#include <vector>

#include "metrics/stage_summary.hpp"

namespace sb {

enum class LoadMode { concurrency, request_rate };

struct StaircaseParams {
  std::vector<int> concurrency;         // --concurrency values (empty if not given)
  std::vector<double> request_rates;    // --request-rate values (default {inf})
  std::optional<int> max_concurrency;   // --max-concurrency (applies to rate stages)
  double burstiness = 1.0;
  int num_prompts = 1000;               // requests per stage
};

struct StagePlan {
  std::size_t index = 0;
  StageLoad load;                       // rate, burstiness, concurrency limit
  int num_requests = 0;
  double load_value = 0;                // the swept value: concurrency or rate (may be inf)
};

struct Staircase {
  LoadMode mode = LoadMode::request_rate;
  std::vector<StagePlan> stages;
};

// Throws sb::UserError (config_error) for impossible combinations, e.g. both lists with > 1 value.
Staircase plan_staircase(const StaircaseParams& p);

const char* to_string(LoadMode m) noexcept;

}  // namespace sb
