#pragma once
// `servebench tune`'s loop (docs/tune.md): per configuration, in order, start the server command
// (behind the profiler wrapper) in its own process group, wait until it serves, run the staircase
// through pipeline::run with the user's run flags (outputs under DIR/<name>/), ask the server to
// profile around it when told to, stop the group, look for the profiler's files, and record the
// outcome (done.json / failure.json). A server that does not start is recorded with its cause and
// the loop goes on; a configuration finished in an earlier run is skipped; a stop request (Ctrl-C)
// ends the current staircase, stops its server and ends the loop.
#include <cstdio>
#include <filesystem>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "core/exit_codes.hpp"
#include "orchestrate/grid.hpp"
#include "orchestrate/server_process.hpp"
#include "orchestrate/tune_outputs.hpp"
#include "pipeline/run_config.hpp"

namespace sb::orchestrate {

struct TuneParams {
  std::string server_cmd;              // with placeholders (command_template.hpp)
  std::string profile_wrapper;         // "" = none
  std::vector<Configuration> configs;  // [0] is the baseline
  std::filesystem::path output_dir;
  pipeline::RunConfig run;       // the user's run flags; target and outputs are set per configuration
  std::optional<int> port_base;  // {port} = port_base + index; nullopt: a free port each
  double ready_timeout_s = 600;
  StopTimeouts stop;
  bool server_profile = false;  // POST /start_profile before and /stop_profile after the staircase
  std::size_t log_lines = 20;   // shown when a server does not start
};

struct TuneIo {
  std::FILE* out = stdout;  // the staircases' blocks and tables
  std::FILE* err = stderr;  // progress, failures, notes
};

struct TuneResult {
  std::vector<TunedConfig> configs;  // in order; a configuration not reached (Ctrl-C) is absent
  bool interrupted = false;
  int failed = 0;                     // configurations whose staircase did not run
  int skipped = 0;                    // finished in an earlier run
  ExitCode worst_run = ExitCode::ok;  // the worst staircase exit code (too_many_failures)
};

TuneResult run_tune(const TuneParams& p, const TuneIo& io, std::stop_token stop);

// Per-configuration file names under DIR/<name>/.
inline constexpr const char* kServerLog = "server.log";
inline constexpr const char* kServerPid = "server.pid";  // while the server runs
inline constexpr const char* kSweepJson = "sweep.json";

}  // namespace sb::orchestrate
