#include "orchestrate/server_process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <thread>

#include "orchestrate/live_groups.hpp"

extern char** environ;

namespace sb::orchestrate {

namespace {

constexpr auto kPoll = std::chrono::milliseconds(20);

ExitStatus status_of(int raw) {
  ExitStatus s;
  if (WIFEXITED(raw))
    s.code = WEXITSTATUS(raw);
  else if (WIFSIGNALED(raw))
    s.signal = WTERMSIG(raw);
  return s;
}

// The child gets a clean signal state: tune blocks SIGINT/SIGTERM in every thread (app/signal_stop)
// and ignores SIGPIPE, and both would be inherited across exec: a server that cannot be interrupted.
void reset_signals(posix_spawnattr_t& attr) {
  sigset_t none, defaults;
  sigemptyset(&none);
  sigemptyset(&defaults);
  for (const int sig : {SIGINT, SIGTERM, SIGPIPE, SIGQUIT, SIGHUP, SIGCHLD}) sigaddset(&defaults, sig);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setpgroup(&attr, 0);  // its own group, led by itself
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);
}

}  // namespace

std::optional<ServerProcess> ServerProcess::start(const SpawnSpec& spec, int& error) {
  error = 0;
  if (spec.argv.empty()) {
    error = EINVAL;
    return std::nullopt;
  }
  posix_spawn_file_actions_t files;
  posix_spawn_file_actions_init(&files);
  posix_spawn_file_actions_addopen(&files, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&files, STDOUT_FILENO, spec.log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&files, STDOUT_FILENO, STDERR_FILENO);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  reset_signals(attr);
  std::vector<char*> argv;
  for (const std::string& a : spec.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = -1;
  error = posix_spawnp(&pid, argv[0], &files, &attr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&files);
  posix_spawnattr_destroy(&attr);
  if (error != 0) return std::nullopt;
  // The child's setpgid happens before its exec; doing it here too closes the window in which a
  // signal to the group would miss it (the usual shell idiom). EACCES after its exec is harmless.
  ::setpgid(pid, pid);
  register_live_group(pid);
  return ServerProcess(pid);
}

ServerProcess::ServerProcess(ServerProcess&& other) noexcept
    : pid_(other.pid_), status_(other.status_), stopped_(other.stopped_) {
  other.pid_ = -1;
  other.stopped_ = true;
}

ServerProcess::~ServerProcess() {
  if (pid_ > 0 && !stopped_) stop(StopTimeouts{});
}

bool ServerProcess::exited() {
  if (status_) return true;
  int raw = 0;
  const pid_t r = ::waitpid(pid_, &raw, WNOHANG);
  if (r == pid_)
    status_ = status_of(raw);
  else if (r < 0 && errno == ECHILD)
    status_ = ExitStatus{};  // reaped elsewhere: gone all the same
  return status_.has_value();
}

bool ServerProcess::wait_leader(double timeout_s) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  while (!exited()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(kPoll);
  }
  return true;
}

// Members of the group left after the leader: SIGTERM, a short wait, SIGKILL. Orphans of the
// leader are our children (become_child_reaper), so they are reaped here and do not linger.
bool ServerProcess::clear_group() {
  if (!group_alive(pid_)) return false;
  for (const int sig : {SIGTERM, SIGKILL}) {
    if (!group_alive(pid_)) break;
    ::kill(-pid_, sig);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
    while (group_alive(pid_) && std::chrono::steady_clock::now() < deadline) {
      while (::waitpid(-pid_, nullptr, WNOHANG) > 0) {
      }
      std::this_thread::sleep_for(kPoll);
    }
  }
  return true;
}

StopReport ServerProcess::stop(const StopTimeouts& t) {
  StopReport report;
  if (pid_ <= 0 || stopped_) return report;
  stopped_ = true;
  if (!exited()) {
    report.leader = StopStep::survived;
    const std::pair<int, double> steps[] = {{SIGINT, t.sigint_s}, {SIGTERM, t.sigterm_s}, {SIGKILL, t.sigkill_s}};
    const StopStep names[] = {StopStep::sigint, StopStep::sigterm, StopStep::sigkill};
    for (int i = 0; i < 3; ++i) {
      ::kill(-pid_, steps[i].first);
      if (wait_leader(steps[i].second)) {
        report.leader = names[i];
        break;
      }
    }
  }
  report.stragglers = clear_group();
  if (!group_alive(pid_)) unregister_live_group(pid_);
  return report;
}

void become_child_reaper() { ::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); }

bool group_alive(pid_t pgid) { return pgid > 0 && ::kill(-pgid, 0) == 0; }

}  // namespace sb::orchestrate
