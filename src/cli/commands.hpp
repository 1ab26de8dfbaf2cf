#pragma once
// The subcommand table. Each command lives in its own file (cli/<name>_cmd.cpp) and receives
// argv with argv[0] = the command name.
#include <span>

namespace sb::cli {

using CommandFn = int (*)(int argc, char** argv);

struct Command {
  const char* name;
  const char* summary;
  CommandFn fn;
};

std::span<const Command> commands();

// Runs a command, turning sb::UserError into a one-line message and its exit code, and any other
// exception into "internal error" (exit 1) instead of a crash.
int run_guarded(const Command& c, int argc, char** argv);

int run_cmd(int argc, char** argv);
int sim_cmd(int argc, char** argv);
int demo_cmd(int argc, char** argv);
int report_cmd(int argc, char** argv);
int compare_cmd(int argc, char** argv);
int tokenize_cmd(int argc, char** argv);
int kernels_cmd(int argc, char** argv);

}  // namespace sb::cli
