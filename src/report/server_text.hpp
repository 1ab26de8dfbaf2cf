#pragma once
// The words of `servebench tune` about its server processes: why one did not start (with the last
// lines of its log), how it was stopped, and what its profiler left behind.
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "core/server_outcome.hpp"

namespace sb::report {

std::string_view log_cause_text(LogCause c);  // "HIP out of memory", "port already in use", ...
std::string_view log_cause_hint(LogCause c);  // what to change; "" for unknown

struct ConfigFailureFacts {
  ConfigOutcome outcome = ConfigOutcome::exited_at_start;
  LogCause cause = LogCause::unknown;
  int exit_code = -1;         // when it exited
  int signal = 0;             // when a signal ended it
  double waited_s = 0;        // not_ready: how long readiness was awaited
  int last_http_status = 0;   // not_ready: the last answer (0: none)
  std::string last_log_line;  // "" when the log was empty
  std::string detail;         // spawn_failed: the system's error text; run_failed: the run's message
};

// One line: "exited at start (HIP out of memory): torch.OutOfMemoryError: HIP out of memory. ...".
std::string config_failure_line(const ConfigFailureFacts& f);

// The failure line, the hint, and the log's last lines under "last lines of PATH:".
void print_config_failure(std::FILE* err, std::string_view name, const ConfigFailureFacts& f,
                          const std::vector<std::string>& log_tail, std::string_view log_path);

// What a profiler left, said plainly: "" for found and not_asked.
std::string trace_outcome_line(TraceOutcome t, std::string_view dir, bool wrapper_given);

// A note when the server needed more than SIGINT (or left processes behind); "" when it did not.
std::string stop_note(StopStep step, bool stragglers, double sigint_s);

// Progress of the loop, on stderr: "[2/4] NAME: starting COMMAND (log: PATH)", "... ready after 3.2 s",
// "[3/4] NAME: done before (DIR/done.json), skipped".
void print_config_start(std::FILE* err, std::size_t index, std::size_t count, std::string_view name,
                        std::string_view command, std::string_view log_path);
void print_config_ready(std::FILE* err, std::string_view name, double ready_s, int port);
void print_config_skipped(std::FILE* err, std::size_t index, std::size_t count, std::string_view name,
                          std::string_view record_path);
// A note about one configuration (a stop note, a trace line, a failed /start_profile): "NAME: NOTE".
void print_config_note(std::FILE* err, std::string_view name, std::string_view note);
// /start_profile or /stop_profile answered `status` (0: no answer) instead of 200.
std::string profile_call_note(std::string_view path, int status);
// spawn_failed's detail for an errno of posix_spawnp.
std::string spawn_error_text(std::string_view program, int error);

}  // namespace sb::report
