#pragma once
// `servebench predict --grid`: one row per combination of engine knobs, the answers side by side:
// the knee (load and req/s there), the peak output throughput, and TTFT / TPOT p50 at the knee.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "load/staircase.hpp"

namespace sb::report {

struct GridRow {
  std::vector<std::pair<std::string, double>> point;  // (knob, value), as --grid named them
  std::optional<double> knee_load;                    // nullopt: no knee in the staircase
  std::optional<double> knee_rps, knee_ttft_p50_ms, knee_tpot_p50_ms;
  double peak_output_tps = 0;
  std::optional<std::string> error;                   // the combination could not run (why)
};

std::string format_grid_table(LoadMode mode, const std::vector<GridRow>& rows);

}  // namespace sb::report
