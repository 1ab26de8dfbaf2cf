#pragma once
// The subcommand table. Each command lives in its own file (cli/<name>_cmd.cpp) and receives
// argv with argv[0] = the command name. Commands that send load take a stop token as well: app/
// requests the stop on SIGINT/SIGTERM while such a command runs.
#include <span>
#include <stop_token>

namespace sb::cli {

using CommandFn = int (*)(int argc, char** argv);
using StoppableCommandFn = int (*)(int argc, char** argv, std::stop_token stop);

struct Command {
  const char* name;
  const char* summary;
  CommandFn fn = nullptr;                 // exactly one of fn and stoppable is set
  StoppableCommandFn stoppable = nullptr;  // the caller turns SIGINT/SIGTERM into `stop`
};

std::span<const Command> commands();

// Runs a command, turning sb::UserError into a one-line message and its exit code, and any other
// exception into "internal error" (exit 1) instead of a crash.
// `stop` reaches stoppable commands only.
int run_guarded(const Command& c, int argc, char** argv, std::stop_token stop = {});

int run_cmd(int argc, char** argv, std::stop_token stop);
int sim_cmd(int argc, char** argv);
int demo_cmd(int argc, char** argv, std::stop_token stop);
int report_cmd(int argc, char** argv);
int compare_cmd(int argc, char** argv);
int tokenize_cmd(int argc, char** argv);
int kernels_cmd(int argc, char** argv);
int selftest_cmd(int argc, char** argv);
int tune_cmd(int argc, char** argv, std::stop_token stop);
int predict_cmd(int argc, char** argv);
int calibrate_cmd(int argc, char** argv);
int merge_cmd(int argc, char** argv);
int k8s_job_cmd(int argc, char** argv);

}  // namespace sb::cli
