#pragma once
// One configuration's kernels as `tune` compares them: over its whole traces, and per load stage when
// every trace could be placed on the run's wall clock (trace/placement.hpp: sidecar, same-host clocks,
// else the load-timeline estimate). Kernels only, grouped by base name (copies are not tuned), the way
// `compare --traces` ranks them.
#include <cstddef>
#include <vector>

#include "analyze/compare.hpp"
#include "results/model.hpp"
#include "trace/align.hpp"
#include "trace/kernel_event.hpp"

namespace sb::analyze {

struct StageKernelSummary {
  double load_value = 0;
  std::vector<KernelSummary> kernels;  // by total time, desc
};

struct ConfigKernels {
  std::size_t traces = 0;           // traces given
  std::size_t placed = 0;           // of which placed on the run's clock
  std::vector<trace::OffsetSource> sources;  // per placed trace, how
  std::vector<KernelSummary> whole;          // every trace, by total time desc
  std::vector<StageKernelSummary> stages;    // per run stage (run order), only when every trace was placed

  bool per_stage() const noexcept { return !stages.empty(); }
};

// `run` may lack stage windows (then only `whole`). Traces with no events add nothing.
ConfigKernels config_kernels(const std::vector<trace::KernelTrace>& traces, const results::Run& run);

// The kernels at the stage of load `load_value`, else the whole-trace ones.
const std::vector<KernelSummary>& kernels_at(const ConfigKernels& k, double load_value);

}  // namespace sb::analyze
