#include "pipeline/run_console.hpp"

namespace sb::pipeline {

void note(const RunIo& io, const std::string& line) { std::fprintf(io.err, "%s\n", line.c_str()); }

// Once a write to `out` failed (EPIPE: `servebench run | head -1`, SIGPIPE being ignored), printing
// stops and the run goes on writing its files.
void print(std::FILE* out, const std::string& text) {
  if (std::ferror(out)) return;
  std::fputs(text.c_str(), out);
  std::fflush(out);
}

}  // namespace sb::pipeline
