#pragma once
// One server process for `tune`: started in its own process group (so a terminal's Ctrl-C reaches
// tune only, and tune decides the order of the stop) with stdout and stderr in one log file, and
// stopped as a group: SIGINT (what vLLM and uvicorn shut down cleanly on), then SIGTERM, then
// SIGKILL, each after its timeout. Whatever is left of the group after the leader exited (a
// profiler's helper, a worker that ignores SIGINT) is terminated too, so no orphan survives.
#include <sys/types.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/server_outcome.hpp"

namespace sb::orchestrate {

struct SpawnSpec {
  std::vector<std::string> argv;   // argv[0] is looked up on PATH
  std::filesystem::path log_path;  // stdout and stderr, truncated at start
};

struct StopTimeouts {
  double sigint_s = 30;  // vLLM frees GPU memory and writes profiler output on SIGINT: give it time
  double sigterm_s = 10;
  double sigkill_s = 5;  // for the kernel to deliver it (a process in D state takes a while)
};

struct ExitStatus {
  int code = -1;   // exit code when it exited, else -1
  int signal = 0;  // the signal that killed it, else 0
};

struct StopReport {
  StopStep leader = StopStep::already_exited;
  bool stragglers = false;  // other group members were alive after the leader and were terminated here
};

class ServerProcess {
 public:
  // Starts spec.argv; on failure returns nullopt and sets `error` (an errno: ENOENT, EACCES, ...).
  static std::optional<ServerProcess> start(const SpawnSpec& spec, int& error);

  ServerProcess(ServerProcess&& other) noexcept;
  ServerProcess& operator=(ServerProcess&&) = delete;
  ServerProcess(const ServerProcess&) = delete;
  ~ServerProcess();  // stops the group (default timeouts) if stop() was not called

  pid_t pid() const { return pid_; }  // also the process group id
  // True once the leader has exited (reaped here); exit_status() then says how.
  bool exited();
  const std::optional<ExitStatus>& exit_status() const { return status_; }

  // Signals the group step by step until the leader exits, then clears the group. Idempotent.
  StopReport stop(const StopTimeouts& timeouts);

 private:
  explicit ServerProcess(pid_t pid) : pid_(pid) {}
  bool wait_leader(double timeout_s);
  bool clear_group();

  pid_t pid_ = -1;
  std::optional<ExitStatus> status_;
  bool stopped_ = false;
};

// Makes this process the reaper of its orphaned descendants (Linux PR_SET_CHILD_SUBREAPER), so a
// server's children that outlive it are ours to wait for instead of lingering as zombies.
void become_child_reaper();

// True while any process of group `pgid` exists (kill(-pgid, 0) succeeds).
bool group_alive(pid_t pgid);

}  // namespace sb::orchestrate
