#pragma once
// The record tune keeps of each configuration in its folder: `done.json` once the staircase ran
// (a re-run skips the configuration and reads the record instead), `failure.json` when it did not
// (a re-run tries it again: the cause, a full GPU or a typo, may have been fixed meanwhile).
// Paths in the record are relative to the configuration's folder, so the output folder can move.
// docs/tune.md describes the keys.
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/server_outcome.hpp"

namespace sb::orchestrate {

inline constexpr const char* kDoneFile = "done.json";
inline constexpr const char* kFailureFile = "failure.json";

struct ConfigRecord {
  std::string name;
  std::vector<std::pair<std::string, std::string>> params;
  ConfigOutcome outcome = ConfigOutcome::ran;
  LogCause cause = LogCause::unknown;  // from the log, when the server exited at start
  std::string failure;                 // one line; empty when it ran
  std::string command;                 // what was started, as one shell line
  int port = 0;
  std::string sweep_json;                  // "" when the staircase did not run
  std::vector<std::string> kernel_traces;  // profiler files with kernel rows
  TraceOutcome traces = TraceOutcome::not_asked;
  int run_exit_code = 0;  // the staircase's (docs/exit-codes.md)
  double ready_s = 0;     // from start to ready
  double total_s = 0;     // from start to stopped
};

std::string record_json(const ConfigRecord& r);
// nullopt when `text` is not a record tune wrote (then the configuration runs again).
std::optional<ConfigRecord> parse_record(std::string_view text);

std::string_view config_outcome_key(ConfigOutcome o);
std::string_view log_cause_key(LogCause c);
std::string_view trace_outcome_key(TraceOutcome t);

}  // namespace sb::orchestrate
