#pragma once
// Everything `tune` concludes across its configurations, from results already read (sans-I/O): each
// configuration's knee and capacity, its comparison with the baseline at the stages they share (with
// kernel rows per stage when the traces align with the stages), the best configuration under the
// SLOs, and the Pareto view. orchestrate/tune_outputs reads the files and writes what report/ formats.
#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analyze/analysis.hpp"
#include "analyze/compare.hpp"
#include "analyze/config_kernels.hpp"
#include "analyze/pareto.hpp"
#include "analyze/tune_rank.hpp"
#include "results/model.hpp"
#include "trace/kernel_event.hpp"

namespace sb::analyze {

struct TuneConfigInput {
  std::string name;
  std::vector<std::pair<std::string, std::string>> params;
  std::optional<results::Run> run;         // absent when the configuration failed
  std::vector<trace::KernelTrace> traces;  // may be empty
  std::string failure;                     // one line, when it failed
};

struct TuneInput {
  std::vector<TuneConfigInput> configs;  // [0] is the baseline
  std::vector<Slo> slos;
  int gpus_per_config = 1;
  std::size_t top_kernels = 5;
  int bootstrap_resamples = 1000;
};

struct StageKernelDeltas {
  double load_value = 0;
  std::vector<KernelDelta> kernels;  // the baseline's top kernels at this stage
};

struct TunedResult {
  std::optional<RunAnalysis> analysis;            // when it ran
  ConfigKernels kernels;
  std::optional<Comparison> vs_baseline;          // configurations after the baseline, when both ran
  std::vector<StageKernelDeltas> stage_kernels;   // per shared stage, when both traces align with stages
  bool headline_kernels_per_stage = false;        // the headline's kernel rows are its stage's, not whole-trace
};

struct TuneAnalysis {
  std::vector<TunedResult> results;  // one per configuration, in order
  TuneRanking ranking;
  std::vector<ParetoPoint> pareto;
};

TuneAnalysis analyze_tune(const TuneInput& in);

}  // namespace sb::analyze
