#pragma once
// Shared by the client_* benchmark programs: start `servebench sim` pinned to one core, pin the
// client to another, build request bodies, and measure CPU, RSS and percentiles.
#include <sched.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "exec/runner.hpp"

namespace sb::bench {

struct Sim {
  pid_t pid = -1;
  std::uint16_t port = 0;

  // argv after "servebench sim"; the simulator runs on `core` (taskset), on a free port, or on
  // `on_port` (which another simulator started with --reuse-port holds: pass --reuse-port too).
  Sim(const std::vector<std::string>& args, int core, std::uint16_t on_port = 0) {
    int out[2];
    if (pipe(out) != 0) throw std::runtime_error("pipe failed");
    std::vector<std::string> cmd = {"taskset", "-c", std::to_string(core), SB_BINARY, "sim", "--port",
                                    std::to_string(on_port)};
    cmd.insert(cmd.end(), args.begin(), args.end());
    pid = fork();
    if (pid == 0) {
      dup2(out[1], 1);
      close(out[0]);
      std::vector<char*> argv;
      for (auto& a : cmd) argv.push_back(a.data());
      argv.push_back(nullptr);
      execvp(argv[0], argv.data());
      _exit(127);
    }
    close(out[1]);
    std::string line;
    char ch;
    while (read(out[0], &ch, 1) == 1 && ch != '\n') line += ch;
    close(out[0]);
    const auto colon = line.rfind(':');
    if (line.rfind("listening on", 0) != 0 || colon == std::string::npos) {
      throw std::runtime_error("servebench sim did not start: '" + line + "'");
    }
    port = static_cast<std::uint16_t>(std::stoi(line.substr(colon + 1)));
  }
  ~Sim() { stop(); }
  void stop() {
    if (pid <= 0) return;
    kill(pid, SIGTERM);
    waitpid(pid, nullptr, 0);
    pid = -1;
  }
};

inline void pin_to_core(int core) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(core, &set);
  sched_setaffinity(0, sizeof set, &set);  // threads created afterwards inherit it
}

inline double cpu_seconds() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

inline long peak_rss_kib() {
  std::ifstream status("/proc/self/status");
  std::string key;
  long value = 0;
  while (status >> key) {
    if (key == "VmHWM:") {
      status >> value;
      return value;
    }
  }
  return 0;
}

// numpy-style linear interpolation percentile of an unsorted copy.
inline double percentile(std::vector<double> v, double p) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  const double pos = p / 100.0 * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(pos);
  const std::size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
}

inline std::string completion_body(int max_tokens) {
  return R"({"model":"sim-model","prompt":"hello","max_tokens":)" + std::to_string(max_tokens) +
         R"(,"ignore_eos":true,"stream":true,"stream_options":{"include_usage":true}})";
}

inline ClientOptions client_options(std::uint16_t port) {
  ClientOptions opt;
  opt.endpoint = parse_base_url("http://127.0.0.1:" + std::to_string(port));
  opt.threads = 1;  // the benchmarks measure what one client core does
  opt.idle_timeout_s = 30;
  return opt;
}

// A stage of `n` identical requests with ids "b-<i>" at the given offsets (empty: closed loop).
struct BenchStage {
  std::vector<std::string> bodies;
  StageInput in;
  BenchStage(std::size_t n, int max_tokens, std::optional<int> limit) : bodies(n, completion_body(max_tokens)) {
    in.bodies = &bodies;
    in.max_concurrency = limit;
    for (std::size_t i = 0; i < n; ++i) in.requests.push_back({"b-" + std::to_string(i), -1, max_tokens, 0});
  }
};

struct Tally {
  std::size_t ok = 0, failed = 0, events = 0;
  std::string first_error;
};

inline Tally tally(const StageOutput& out) {
  Tally t;
  for (const auto& r : out.records) {
    if (r.ok()) ++t.ok;
    else {
      ++t.failed;
      if (t.first_error.empty()) t.first_error = std::string(to_string(r.outcome)) + ": " + r.error;
    }
    t.events += r.token_ns.size();
  }
  return t;
}

}  // namespace sb::bench
