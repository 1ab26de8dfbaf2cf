#pragma once
// Child processes for the `servebench run` end-to-end tests: a `servebench sim` on a free port and
// `servebench run` itself with captured stdout/stderr, a clean environment and its own folder.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "support/timing_bounds.hpp"

extern char** environ;

namespace sb::e2e {

namespace fs = std::filesystem;

inline std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A fresh folder per test (no ./servebench.toml from elsewhere); removed at the end.
struct TempDir {
  fs::path path;
  explicit TempDir(const std::string& tag) {
    path = fs::temp_directory_path() / ("sb_e2e_" + tag + "_" + std::to_string(::getpid()));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
};

// The client ceiling every child uses unless a test sets SB_SELFTEST_CACHE itself: a pinned cache
// file (cli/ceiling_probe.hpp) with known numbers, so that no run spends time on the probe before
// its load and a stage's ceiling_fraction is events/s / 1e6 per thread.
inline constexpr double kPinnedEventsPerCpuS = 1e6;

inline const std::string& pinned_selftest_cache() {
  static const std::string path = [] {
    const fs::path p = fs::temp_directory_path() / ("sb_e2e_selftest_" + std::to_string(::getpid()) + ".json");
    std::ofstream(p) << R"({"kind": "servebench.selftest_cache", "entries": [{"key": {"threads": 0}, "ceiling": {)"
                        R"("threads": 1, "events_per_cpu_s": 1000000, "events_per_s": 900000, "requests_per_s": 14000,)"
                        R"( "timestamp_overhead_ns": 20, "timer_overshoot_p99_us": 60, "dispatch_lag_p99_ms": 0.1,)"
                        R"( "dispatch_rate": 2000, "measured_unix_s": 1700000000}}]})";
    return p.string();
  }();
  return path;
}

// fork + exec SB_BINARY with `args`, in `dir`, stdout/stderr to files there; OPENAI_API_KEY is
// removed from the environment unless `env` sets it; SB_SELFTEST_CACHE is the pinned cache above
// unless `env` sets it.
inline pid_t spawn(const std::vector<std::string>& args, const fs::path& dir, const std::string& tag,
                   const std::map<std::string, std::string>& env = {}) {
  const std::string& cache = pinned_selftest_cache();  // written before the fork
  const pid_t pid = ::fork();
  if (pid != 0) return pid;
  if (::chdir(dir.c_str()) != 0) ::_exit(126);
  const int out = ::open((dir / (tag + ".out")).c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  const int err = ::open((dir / (tag + ".err")).c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ::dup2(out, STDOUT_FILENO);
  ::dup2(err, STDERR_FILENO);
  ::unsetenv("OPENAI_API_KEY");
  ::setenv("SB_SELFTEST_CACHE", cache.c_str(), 1);
  for (const auto& [k, v] : env) ::setenv(k.c_str(), v.c_str(), 1);
  std::vector<std::string> all = {SB_BINARY};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  ::execv(SB_BINARY, argv.data());
  ::_exit(127);
}

// Exit status, or 128 + signal; -1 if it did not end within `timeout_s` (then it is killed). Under
// ASan the wait is 3x: a hang is still a failure, a slow instrumented run is not.
inline int wait_exit(pid_t pid, double timeout_s) {
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::duration<double>(sb::test_timing::prompt_s(timeout_s));
  int status = 0;
  while (::waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

class Sim {
 public:
  Sim(const std::vector<std::string>& args, const fs::path& dir) : dir_(dir) {
    std::vector<std::string> all = {"sim", "--port", "0"};
    all.insert(all.end(), args.begin(), args.end());
    pid_ = spawn(all, dir, "sim");
    // The first stdout line is "listening on http://127.0.0.1:PORT".
    for (int i = 0; i < 500 && port_ == 0; ++i) {
      const std::string out = slurp(dir / "sim.out");
      const auto nl = out.find('\n');
      if (nl != std::string::npos) port_ = std::stoi(out.substr(out.rfind(':', nl) + 1, nl));
      else std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  ~Sim() {
    ::kill(pid_, SIGTERM);
    wait_exit(pid_, 5);
  }
  int port() const { return port_; }
  std::string port_text() const { return std::to_string(port_); }

 private:
  fs::path dir_;
  pid_t pid_ = -1;
  int port_ = 0;
};

struct RunResult {
  int code = -1;
  std::string out, err;
};

// `servebench ARGS...` (the subcommand first) in `dir`; stdout/stderr kept as TAG.out / TAG.err.
inline RunResult run_subcommand(const std::vector<std::string>& args, const fs::path& dir, const std::string& tag,
                                const std::map<std::string, std::string>& env = {}, double timeout_s = 60) {
  RunResult r;
  r.code = wait_exit(spawn(args, dir, tag, env), timeout_s);
  r.out = slurp(dir / (tag + ".out"));
  r.err = slurp(dir / (tag + ".err"));
  return r;
}

inline RunResult run_servebench(const std::vector<std::string>& args, const fs::path& dir,
                                const std::map<std::string, std::string>& env = {}, double timeout_s = 60) {
  std::vector<std::string> all = {"run"};
  all.insert(all.end(), args.begin(), args.end());
  return run_subcommand(all, dir, "run", env, timeout_s);
}

}  // namespace sb::e2e
