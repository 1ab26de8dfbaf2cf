#pragma once
// The engine file: what `--engine-config FILE` reads and `servebench calibrate -o FILE` writes.
// Tables [engine], [model], [gpu] and [cost] with the keys of sim/engine_knobs.hpp; unknown keys
// and values of the wrong type are errors. Sans-I/O: text in, values out (the caller reads the
// file), so it is fuzzed and tested without files.
#include <span>
#include <string>
#include <string_view>

#include "sim/engine_knobs.hpp"

namespace sb::sim {

// The values the file sets. Throws sb::UserError, one line: "FILE:LINE:COL: ..." when it is no
// TOML, "FILE:LINE (table.key): ..." for an unknown key or a value of the wrong type. Ranges are
// not checked here: the caller checks the merged layers (knob_bounds_problem).
KnobSettings read_engine_toml(std::string_view text, std::string_view file_name);

// One line of a written file: `key = value`, then `  # comment` when there is one.
struct EngineTomlLine {
  const EngineKnob* knob = nullptr;
  KnobValue value;
  std::string comment;
};

// Each table once: its [table] header after a blank line, then its lines in their given order
// (tables in the order of their first line).
// Numbers in the shortest text that reads back as the same double, names as TOML basic strings.
std::string write_engine_toml(std::span<const EngineTomlLine> lines);

}  // namespace sb::sim
