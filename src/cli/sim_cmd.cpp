// Placeholder until the sim command lands: it must fail loudly, never pretend to work.
#include <cstdio>

#include "cli/commands.hpp"
#include "core/exit_codes.hpp"

namespace sb::cli {

int sim_cmd(int, char**) {
  std::fputs("servebench sim: not implemented yet\n", stderr);
  return to_int(ExitCode::internal_error);
}

}  // namespace sb::cli
