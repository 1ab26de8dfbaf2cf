#include "predict/fitted_toml.hpp"

#include "predict/fit_params.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace sb::predict {
namespace {

// A TOML basic string: quotes and backslashes escaped (a path may hold either).
std::string toml_string(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// Shortest text that reads back as the same double.
std::string number(double v) { return fmt::format("{}", v); }

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

}  // namespace

std::string fitted_toml(const FittedTomlInput& in) {
  const CalibrateResult& r = *in.result;
  const sim::EngineConfig& c = r.fitted;
  std::string out = fmt::format("# servebench calibrate: cost parameters fitted to {}\n", in.source);
  out += fmt::format("# objective {:.3g} after {} replays (docs/predict.md)\n", r.objective, r.evaluations);
  out += kernel_comments(in) + "\n[engine]\n";
  out += fmt::format("model_preset = {}\ngpu_preset = {}\n", toml_string(in.model_preset), toml_string(in.gpu_preset));
  out += fmt::format("tensor_parallel_size = {}\nmax_num_seqs = {}\nmax_num_batched_tokens = {}\n",
                     c.hardware.tensor_parallel, c.scheduler.max_num_seqs, c.scheduler.max_num_batched_tokens);
  out += fmt::format("enable_chunked_prefill = {}\nblock_size = {}\ngpu_memory_utilization = {}\n",
                     c.scheduler.chunked_prefill, c.block_size, number(c.gpu_memory_utilization));
  if (c.num_gpu_blocks_override > 0) out += fmt::format("num_gpu_blocks_override = {}\n", c.num_gpu_blocks_override);
  // The fit table's parameters (fit_params.cpp), so a renamed cost parameter is followed there
  // alone; the others keep their preset values.
  out += "\n[cost]\n";
  for (const FitParam& p : fit_params()) {
    out += fmt::format("{} = {}", p.name, number(c.hardware.cost.*(p.member)));
    const auto fitted = std::find_if(r.params.begin(), r.params.end(), [&](const FittedParam& f) { return f.name == p.name; });
    if (fitted != r.params.end()) out += fmt::format("  # fitted (start {})", number(fitted->start));
    out += '\n';
  }
  return out;
}

}  // namespace sb::predict
