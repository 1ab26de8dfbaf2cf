#include "cli/sim_engine_flags.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "core/error.hpp"
#include "sim/engine_backend.hpp"
#include "sim/engine_toml.hpp"
#include "sim/presets.hpp"

namespace sb::cli {
namespace {

void add_knob_flag(CLI::App& app, const sim::EngineKnob& k, sim::KnobSettings& knobs) {
  const std::string flag(k.flag), help(k.help);
  switch (sim::knob_type(k)) {
    case sim::KnobType::integer:
      app.add_option_function<std::int64_t>(
             flag, [&knobs, &k](const std::int64_t& v) { knobs.set(k, v); }, help)
          ->check(CLI::Range(static_cast<std::int64_t>(k.min), static_cast<std::int64_t>(k.max)));
      return;
    case sim::KnobType::number:
      app.add_option_function<double>(
             flag, [&knobs, &k](const double& v) { knobs.set(k, v); }, help)
          ->check(CLI::Range(k.min, k.max));
      return;
    case sim::KnobType::boolean:
      app.add_flag_function(
          k.negatable ? flag + ",!--no-" + flag.substr(2) : flag,
          [&knobs, &k](std::int64_t count) { knobs.set(k, count > 0); }, help);
      return;
    case sim::KnobType::text:
      app.add_option_function<std::string>(
          flag, [&knobs, &k](const std::string& v) { knobs.set(k, v); }, help);
      return;
  }
}

}  // namespace

void add_engine_flags(CLI::App& app, EngineFlags& f) {
  for (const sim::EngineKnob& k : sim::engine_knobs())
    if (!k.flag.empty()) add_knob_flag(app, k, f.knobs);
  app.add_option("--engine-config", f.engine_config, "TOML file overriding preset numbers")->check(CLI::ExistingFile);
  app.add_option("--kernel-trace", f.kernel_trace, "Write simulated kernels here while profiling");
  app.add_option("--kernel-trace-format", f.kernel_trace_format, "rocprof | rocprofv3 | nsys")
      ->check(CLI::IsMember({"rocprof", "rocprofv3", "nsys"}));
  app.add_option("--kernel-trace-max-rows", f.kernel_trace_max_rows, "Stop recording after this many kernels")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 40));
  app.add_flag("--list-presets", f.list_presets, "Print the model and GPU presets and exit");
}

namespace {

std::string read_engine_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UserError(fmt::format("--engine-config {}: cannot read: {}", path, std::strerror(errno)));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

sim::EngineConfig from_presets(const std::string& model_name, const std::string& gpu_name) {
  const sim::ModelPreset* model = sim::find_model_preset(model_name);
  if (model == nullptr) {
    throw UserError(fmt::format("--model-preset {}: unknown (servebench sim --list-presets)", model_name));
  }
  const sim::GpuPreset* gpu = sim::find_gpu_preset(gpu_name);
  if (gpu == nullptr)
    throw UserError(fmt::format("--gpu-preset {}: unknown (servebench sim --list-presets)", gpu_name));
  sim::EngineConfig c;
  c.hardware.model = *model;
  c.hardware.gpu = *gpu;
  c.hardware.cost = gpu->cost;
  c.hardware.tensor_parallel = model->default_tensor_parallel;
  return c;
}

// CLI11 checks the flags' ranges as it parses; the file's values, and those a command sets itself,
// are checked here, once the layers are merged.
void check_ranges(const sim::KnobSettings& given) {
  for (const sim::EngineKnob& k : sim::engine_knobs()) {
    const auto& value = given.get(k);
    if (!value) continue;
    if (const auto problem = sim::knob_bounds_problem(k, *value))
      throw UserError(fmt::format("engine config: {} {}", sim::knob_path(k), *problem));
  }
}

}  // namespace

sim::EngineConfig resolve_engine_config(const EngineFlags& flags) {
  sim::KnobSettings given;
  if (!flags.engine_config.empty())
    given = sim::read_engine_toml(read_engine_file(flags.engine_config), flags.engine_config);
  given.overlay(flags.knobs);
  sim::EngineConfig config = from_presets(given.get<std::string>("engine.model_preset").value_or("llama-3-8b"),
                                          given.get<std::string>("engine.gpu_preset").value_or("h100"));
  check_ranges(given);
  given.apply(config);
  return config;
}

std::unique_ptr<sim::Backend> make_engine_backend(const EngineFlags& flags) {
  const sim::EngineConfig config = resolve_engine_config(flags);
  const auto format = sim::parse_trace_format(flags.kernel_trace_format);
  if (!format) {
    throw UserError(
        fmt::format("--kernel-trace-format {}: expected rocprof, rocprofv3 or nsys", flags.kernel_trace_format));
  }
  if (!flags.kernel_trace.empty()) {
    // Fail at startup, not at the first /start_profile, when the path is unusable.
    // The probe creates the file the trace will replace; errno says why it could not (a missing
    // folder, a read-only disk), which "cannot open" alone does not.
    std::FILE* probe = std::fopen(flags.kernel_trace.c_str(), "w");
    if (probe == nullptr)
      throw UserError(
          fmt::format("--kernel-trace {}: cannot open for writing: {}", flags.kernel_trace, std::strerror(errno)));
    std::fclose(probe);
  }
  return std::make_unique<sim::EngineBackend>(
      config, sim::KernelTraceOptions{flags.kernel_trace, *format, flags.kernel_trace_max_rows});
}

}  // namespace sb::cli
