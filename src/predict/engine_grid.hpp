#pragma once
// `predict --grid KEY=V1,V2,...` (repeatable): what-ifs over engine knobs. Each axis names an
// engine setting (scheduler: max_num_seqs, max_num_batched_tokens, block_size,
// gpu_memory_utilization, num_gpu_blocks_override, tensor_parallel_size; or a cost parameter of
// the fit table); the grid is every combination, the first axis varying slowest.
#include <string>
#include <utility>
#include <vector>

#include "sim/engine.hpp"

namespace sb::predict {

struct GridAxis {
  std::string key;
  std::vector<double> values;
};

// One combination: (key, value) per axis, in axis order.
using GridPoint = std::vector<std::pair<std::string, double>>;

// Parses one --grid value. Throws sb::UserError "--grid TEXT: what" for an unknown key, a missing
// '=' or a value that is not a number (or, for an integer knob, not a positive integer).
GridAxis parse_grid_axis(const std::string& text);

std::vector<GridPoint> grid_points(const std::vector<GridAxis>& axes);

// `base` with the point's values set.
sim::EngineConfig apply_grid_point(const sim::EngineConfig& base, const GridPoint& point);

}  // namespace sb::predict
