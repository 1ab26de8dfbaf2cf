#pragma once
// The run's engine line, printed before the load (docs/engines.md): which engine answers at the
// URL and how it was known, e.g. "engine: llama.cpp (from GET /props, build b6500-1a2b3c)".
#include <string>
#include <string_view>

namespace sb::report {

// `engine`, `clue` and `version` as RunContext holds them (target/engine.hpp's names).
std::string format_engine_line(std::string_view engine, std::string_view clue, std::string_view version);

}  // namespace sb::report
