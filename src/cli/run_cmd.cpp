// Placeholder until the run command lands: it must fail loudly, never pretend to work.
#include <cstdio>

#include "cli/commands.hpp"
#include "core/exit_codes.hpp"

namespace sb::cli {

int run_cmd(int, char**) {
  std::fputs("servebench run: not implemented yet\n", stderr);
  return to_int(ExitCode::internal_error);
}

}  // namespace sb::cli
