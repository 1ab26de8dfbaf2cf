// CPU of `servebench predict` for a 9-stage staircase (issue 15: under 5 s). Runs the binary as a
// child and reads its user + system time with getrusage(RUSAGE_CHILDREN), so the figure is the
// whole command's (dataset, nine stages in virtual time, summaries, sweep document and JSONL).
// Run: build with -DSB_BUILD_BENCH=ON, then ./predict_cpu [num_prompts] (default 1000, vLLM's).
// Exits 1 when a staircase takes 5 s of CPU or more.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

namespace {

double child_cpu_s() {
  rusage ru{};
  getrusage(RUSAGE_CHILDREN, &ru);
  const auto s = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6; };
  return s(ru.ru_utime) + s(ru.ru_stime);
}

// Runs SB_BINARY with `args`, stdout and stderr to /dev/null; returns its exit status.
int run_quiet(const std::vector<std::string>& args) {
  std::fflush(stdout);  // the child would write the parent's buffered lines again
  const pid_t pid = fork();
  if (pid == 0) {
    std::freopen("/dev/null", "w", stdout);
    std::freopen("/dev/null", "w", stderr);
    std::vector<char*> argv{const_cast<char*>(SB_BINARY)};
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(SB_BINARY, argv.data());
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string prompts = argc > 1 ? argv[1] : "1000";
  const std::string out = "/tmp/predict_cpu_" + std::to_string(getpid()) + ".json";
  const std::vector<std::vector<std::string>> staircases = {
      {"--concurrency", "1", "2", "4", "8", "16", "32", "64", "128", "256"},
      {"--request-rate", "1", "2", "4", "8", "16", "32", "64", "128", "inf"},
  };
  bool ok = true;
  for (const auto& loads : staircases) {
    std::vector<std::string> args = {"predict", "--model-preset", "llama-3-8b", "--gpu-preset", "h100", "--num-prompts",
                                     prompts, "--random-input-len", "1024", "--random-output-len", "128",
                                     "--output-json", out};
    args.insert(args.end(), loads.begin(), loads.end());
    const double before = child_cpu_s();
    const int code = run_quiet(args);
    const double cpu_s = child_cpu_s() - before;
    std::printf("%-14s 9 stages x %s prompts: %.2f s CPU (exit %d)\n", loads.front().c_str(), prompts.c_str(), cpu_s,
                code);
    ok = ok && code == 0 && cpu_s < 5.0;
  }
  std::remove(out.c_str());
  return ok ? 0 : 1;
}
