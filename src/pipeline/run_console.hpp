#pragma once
// Where a run's lines go: notes to RunIo::err, the blocks report/ formats to RunIo::out.
#include <cstdio>
#include <string>

#include "pipeline/run_pipeline.hpp"

namespace sb::pipeline {

// One line on io.err.
void note(const RunIo& io, const std::string& line);

// `text` on `out`, flushed; nothing once a write to `out` has failed.
void print(std::FILE* out, const std::string& text);

}  // namespace sb::pipeline
