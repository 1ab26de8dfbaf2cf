#include "predict/engine_grid.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <functional>
#include <optional>

#include "core/error.hpp"
#include "predict/fit_params.hpp"

namespace sb::predict {
namespace {

struct Knob {
  const char* key;
  bool integer;
  std::function<void(sim::EngineConfig&, double)> set;
};

const std::vector<Knob>& scheduler_knobs() {
  static const std::vector<Knob> knobs{
      {"max_num_seqs", true, [](sim::EngineConfig& c, double v) { c.scheduler.max_num_seqs = static_cast<int>(v); }},
      {"max_num_batched_tokens", true,
       [](sim::EngineConfig& c, double v) { c.scheduler.max_num_batched_tokens = static_cast<int>(v); }},
      {"block_size", true, [](sim::EngineConfig& c, double v) { c.block_size = static_cast<int>(v); }},
      {"tensor_parallel_size", true,
       [](sim::EngineConfig& c, double v) { c.hardware.tensor_parallel = static_cast<int>(v); }},
      {"num_gpu_blocks_override", true,
       [](sim::EngineConfig& c, double v) { c.num_gpu_blocks_override = static_cast<std::int64_t>(v); }},
      {"gpu_memory_utilization", false, [](sim::EngineConfig& c, double v) { c.gpu_memory_utilization = v; }},
  };
  return knobs;
}

std::optional<Knob> find_knob(const std::string& key) {
  for (const Knob& k : scheduler_knobs())
    if (key == k.key) return k;
  for (const FitParam& p : fit_params())
    if (key == p.name) return Knob{p.name.data(), false, [&p](sim::EngineConfig& c, double v) { p.set(c, v); }};
  return std::nullopt;
}

std::string knob_names() {
  std::string out;
  for (const Knob& k : scheduler_knobs()) out += std::string(out.empty() ? "" : ", ") + k.key;
  for (const FitParam& p : fit_params()) out += ", " + std::string(p.name);
  return out;
}

}  // namespace

GridAxis parse_grid_axis(const std::string& text) {
  const std::size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    throw UserError(fmt::format("--grid {}: expected KEY=V1,V2,... (e.g. max_num_seqs=64,128,256)", text));
  GridAxis axis;
  axis.key = text.substr(0, eq);
  const std::optional<Knob> knob = find_knob(axis.key);
  if (!knob) throw UserError(fmt::format("--grid {}: unknown key '{}' (one of {})", text, axis.key, knob_names()));
  std::size_t at = eq + 1;
  while (at <= text.size()) {
    const std::size_t comma = std::min(text.find(',', at), text.size());
    const std::string item = text.substr(at, comma - at);
    char* end = nullptr;
    const double v = std::strtod(item.c_str(), &end);
    const bool whole = !item.empty() && end == item.c_str() + item.size() && std::isfinite(v) && v > 0;
    if (!whole || (knob->integer && v != std::floor(v)))
      throw UserError(fmt::format("--grid {}: '{}' is not a positive {}", text, item, knob->integer ? "integer" : "number"));
    axis.values.push_back(v);
    at = comma + 1;
  }
  return axis;
}

std::vector<GridPoint> grid_points(const std::vector<GridAxis>& axes) {
  std::vector<GridPoint> points{GridPoint{}};
  for (const GridAxis& axis : axes) {
    std::vector<GridPoint> next;
    for (const GridPoint& p : points) {
      for (const double v : axis.values) {
        GridPoint q = p;
        q.emplace_back(axis.key, v);
        next.push_back(std::move(q));
      }
    }
    points = std::move(next);
  }
  return points;
}

sim::EngineConfig apply_grid_point(const sim::EngineConfig& base, const GridPoint& point) {
  sim::EngineConfig c = base;
  for (const auto& [key, value] : point) find_knob(key)->set(c, value);
  return c;
}

}  // namespace sb::predict
