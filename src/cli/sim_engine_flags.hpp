#pragma once
// Flags of the continuous-batching simulator (`servebench sim`, `demo`, `predict`, `calibrate`)
// and the factory that turns them into an EngineBackend. The knobs' flags come from the table of
// sim/engine_knobs.hpp. Precedence: preset < --engine-config TOML file < flags.
#include <cstdint>
#include <memory>
#include <string>

#include "sim/backend.hpp"
#include "sim/engine.hpp"
#include "sim/engine_knobs.hpp"

namespace CLI {
class App;
}

namespace sb::cli {

struct EngineFlags {
  // One value per knob given on the command line (or set by the command, e.g. demo's presets),
  // by "table.key": knobs.set("engine.time_scale", 4.0). Unset keeps the file's or the preset's.
  sim::KnobSettings knobs;
  std::string engine_config;                        // --engine-config FILE (TOML)
  std::string kernel_trace;                         // --kernel-trace FILE
  std::string kernel_trace_format = "rocprofv3";    // rocprof | rocprofv3 | nsys
  std::uint64_t kernel_trace_max_rows = 1'000'000;  // recording stops there (file size guard)
  bool list_presets = false;                        // caller prints sim::format_presets() and exits
};

void add_engine_flags(CLI::App& app, EngineFlags& flags);

// Presets + TOML file + flags -> engine configuration. Throws sb::UserError naming the flag,
// FILE:LINE, or the table.key of the first bad value.
sim::EngineConfig resolve_engine_config(const EngineFlags& flags);

// Also checks --kernel-trace-format and that --kernel-trace FILE can be written.
std::unique_ptr<sim::Backend> make_engine_backend(const EngineFlags& flags);

}  // namespace sb::cli
