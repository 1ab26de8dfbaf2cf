#pragma once
// Runs a program found on PATH and returns what it printed on stdout (the GPU tools: a snapshot per
// call). stderr is discarded; a run past `timeout_s` is killed.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sb::telemetry {

struct CommandOutput {
  int exit_code = -1;  // 128 + signal when killed; -1 when it could not start
  bool timed_out = false;
  std::string out;
};

CommandOutput run_command(const std::vector<std::string>& argv, double timeout_s);

// The full path of `program` in $PATH (as a shell would find it), nullopt when absent.
std::optional<std::string> find_on_path(std::string_view program);

}  // namespace sb::telemetry
