#include "predict/fitted_toml.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "predict/fit_params.hpp"
#include "sim/engine_toml.hpp"

namespace sb::predict {
namespace {

// "# kernel targets (GPU busy ms per output token, per GPU) from --kernels A B:" and one line per
// stage that had one, measured and as the fitted parameters replay it.
std::string kernel_comments(const FittedTomlInput& in) {
  if (in.kernel_traces.empty()) return "";
  std::string traces;
  for (const std::string& t : in.kernel_traces) traces += " " + t;
  std::string out = fmt::format("# kernel targets (GPU busy ms per output token, per GPU) from --kernels{}:\n", traces);
  for (const StageFit& s : in.result->stages)
    if (s.measured.gpu_ms_per_token > 0)
      out += fmt::format("#   stage {} (load {:g}{}): measured {:.6g}, fitted {:.6g}\n", s.stage_index, s.load_value,
                         s.held_out ? ", held out" : "", s.measured.gpu_ms_per_token, s.predicted.gpu_ms_per_token);
  return out;
}

// The scheduler settings the measured server ran with, then the fit table's parameters
// (fit_params.hpp), so a renamed or new fittable knob is followed there alone; the other knobs keep
// their preset values.
std::vector<sim::EngineTomlLine> fitted_lines(const FittedTomlInput& in) {
  const sim::EngineConfig& c = in.result->fitted;
  std::vector<sim::EngineTomlLine> lines;
  const auto add = [&](std::string_view path, sim::KnobValue value, std::string comment = {}) {
    lines.push_back({sim::find_knob(path), std::move(value), std::move(comment)});
  };
  const auto keep = [&](std::string_view path) { add(path, *sim::knob_value(*sim::find_knob(path), c)); };
  add("engine.model_preset", in.model_preset);
  add("engine.gpu_preset", in.gpu_preset);
  for (const char* path : {"engine.tensor_parallel_size", "engine.max_num_seqs", "engine.max_num_batched_tokens",
                           "engine.enable_chunked_prefill", "engine.block_size", "engine.gpu_memory_utilization"})
    keep(path);
  if (c.num_gpu_blocks_override > 0) keep("engine.num_gpu_blocks_override");
  const std::vector<FittedParam>& fitted = in.result->params;
  for (const FitParam& p : fit_params()) {
    const auto f = std::find_if(fitted.begin(), fitted.end(), [&](const FittedParam& x) { return x.name == p.name; });
    add(sim::knob_path(*p.knob), p.get(c), f == fitted.end() ? "" : fmt::format("fitted (start {})", f->start));
  }
  return lines;
}

}  // namespace

std::string fitted_toml(const FittedTomlInput& in) {
  const CalibrateResult& r = *in.result;
  std::string out = fmt::format("# servebench calibrate: cost parameters fitted to {}\n", in.source);
  out += fmt::format("# objective {:.3g} after {} replays (docs/predict.md)\n", r.objective, r.evaluations);
  return out + kernel_comments(in) + sim::write_engine_toml(fitted_lines(in));
}

}  // namespace sb::predict
