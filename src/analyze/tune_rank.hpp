#pragma once
// The best tuned configuration under the SLOs (docs/tune.md "What tune writes across configurations"): per configuration its stage of
// highest output tokens/s that meets every SLO; the best configuration has the highest of those;
// throughputs within `tie_tolerance` of each other are a tie, broken by fewer GPUs, then lower TTFT
// p99, then the order given (the baseline first). Numbers and enums: report/tune_text.cpp words them.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "analyze/capacity.hpp"
#include "results/model.hpp"

namespace sb::analyze {

// How one configuration stands.
struct ConfigStanding {
  bool ran = false;                    // it has results
  std::optional<std::size_t> stage;    // its best stage meeting every SLO (index into run.stages)
  double output_throughput = 0;        // tok/s at that stage
  std::optional<double> ttft_p99_ms;   // at that stage
  int gpus = 1;
  std::vector<std::string> missing;    // SLO metrics its results lack
};

enum class BestReason {
  none_ran,          // no configuration has results
  none_meets,        // no stage of any configuration meets every SLO
  only_one_meets,    // one configuration has a stage meeting them
  highest_throughput,  // clearly (beyond the tolerance) the highest output tok/s
  tie_fewer_gpus,    // tied on throughput, fewer GPUs
  tie_lower_ttft,    // tied on throughput and GPUs, lower TTFT p99
  tie_first_listed,  // tied on all three: the one listed first
};

struct TuneRanking {
  std::vector<ConfigStanding> standings;  // one per configuration, in order
  std::optional<std::size_t> best;        // index of the best configuration
  std::optional<std::size_t> runner_up;   // the next one, when another meets the SLOs
  BestReason reason = BestReason::none_ran;
  double tie_tolerance = 0.01;
};

struct RankInput {
  std::vector<const results::Run*> runs;  // null: the configuration failed
  std::vector<int> gpus;                  // per configuration (missing or < 1: 1)
  std::vector<Slo> slos;                  // empty: every stage qualifies
  double tie_tolerance = 0.01;            // relative: 1 % apart is within run-to-run noise
};

TuneRanking rank_configs(const RankInput& in);

// Whether the stage meets every SLO (a metric it lacks does not); lacking metrics are added to
// `missing` once each when given.
bool stage_meets_slos(const results::Stage& s, const std::vector<Slo>& slos, std::vector<std::string>* missing = nullptr);

}  // namespace sb::analyze
