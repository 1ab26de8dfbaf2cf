// `servebench run` and signals: requests never sent after Ctrl-C count as not sent (not failed), a
// second Ctrl-C exits at once, Ctrl-C during the preflight stops at once, and a closed stdout
// (`| head -1`) neither kills the run nor stops its files.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <nlohmann/json.hpp>

#include "e2e/run_process.hpp"
#include "support/timing_bounds.hpp"

namespace sb::e2e {
namespace {

using Json = nlohmann::json;

double signals_seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Waits until `path` has at least `lines` newline characters (or `timeout_s` passed).
bool signals_wait_lines(const fs::path& path, long lines, double timeout_s) {
  const auto t0 = std::chrono::steady_clock::now();
  while (signals_seconds_since(t0) < timeout_s) {
    const std::string s = slurp(path);
    if (std::count(s.begin(), s.end(), '\n') >= lines) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

TEST(RunSignalsE2e, NotSentAfterCtrlCIsNotFailed) {
  TempDir dir("sig_unsent");
  Sim sim({"--ttft-ms", "1", "--itl-ms", "10"}, dir.path);
  ASSERT_NE(sim.port(), 0);
  // 200 requests one at a time, ~60 ms each: a few are done when Ctrl-C comes.
  const pid_t pid = spawn({"run", "--port", sim.port_text(), "--num-prompts", "200", "--random-input-len", "4",
                           "--random-output-len", "5", "--concurrency", "1", "--output-json", "u.json"},
                          dir.path, "run");
  ASSERT_TRUE(signals_wait_lines(dir.path / "u.requests.jsonl", 3, 20)) << slurp(dir.path / "run.err");
  ::kill(pid, SIGINT);
  ASSERT_EQ(wait_exit(pid, 15), 130) << slurp(dir.path / "run.err");
  const Json s = Json::parse(slurp(dir.path / "u.json"))["stages"][0];
  const int sent = s["servebench"]["sent"].get<int>();
  EXPECT_GE(sent, 3);
  EXPECT_LT(sent, 100);
  EXPECT_EQ(s["completed"].get<int>() + s["failed"].get<int>(), sent);
  EXPECT_LE(s["failed"].get<int>(), 1);  // at most the one in flight, cancelled
  const std::string out = slurp(dir.path / "run.out");
  EXPECT_EQ(out.find("Failed requests during benchmark run detected"), std::string::npos) << out;
}

TEST(RunSignalsE2e, SecondCtrlCExitsWithoutTheGracePeriod) {
  TempDir dir("sig_twice");
  Sim sim({"--ttft-ms", "10", "--itl-ms", "50"}, dir.path);
  ASSERT_NE(sim.port(), 0);
  const pid_t pid = spawn({"run", "--port", sim.port_text(), "--num-prompts", "4", "--random-output-len", "400",
                           "--concurrency", "4", "--output-json", "d.json", "--no-preflight-request"},
                          dir.path, "run");
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  ::kill(pid, SIGINT);  // the grace period for the 4 in-flight streams (3 s) starts
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const auto t0 = std::chrono::steady_clock::now();
  ::kill(pid, SIGINT);
  EXPECT_EQ(wait_exit(pid, 15), 130) << slurp(dir.path / "run.err");
  EXPECT_LT(signals_seconds_since(t0), sb::test_timing::prompt_s(1.5));
  EXPECT_NE(slurp(dir.path / "run.err").find("interrupted again: exiting now"), std::string::npos);
}

// A server that accepts TCP connections (the kernel's backlog) and never answers: the preflight's
// GET /v1/models waits for its 30 s timeout.
struct SignalsSilentListener {
  int fd = -1, port = 0;
  SignalsSilentListener() {
    fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), len) != 0 || ::listen(fd, 16) != 0) return;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
    port = ntohs(addr.sin_port);
  }
  ~SignalsSilentListener() { ::close(fd); }
};

TEST(RunSignalsE2e, CtrlCDuringPreflightStopsAtOnce) {
  TempDir dir("sig_preflight");
  SignalsSilentListener server;
  ASSERT_NE(server.port, 0);
  const pid_t pid = spawn({"run", "--port", std::to_string(server.port), "--num-prompts", "2", "--output-json",
                           "p.json"},
                          dir.path, "run");
  std::this_thread::sleep_for(std::chrono::milliseconds(700));
  const auto t0 = std::chrono::steady_clock::now();
  ::kill(pid, SIGINT);
  EXPECT_EQ(wait_exit(pid, 20), 130) << slurp(dir.path / "run.err");
  EXPECT_LT(signals_seconds_since(t0), sb::test_timing::prompt_s(2.0));
  EXPECT_NE(slurp(dir.path / "run.err").find("stopped before the load"), std::string::npos)
      << slurp(dir.path / "run.err");
  EXPECT_FALSE(fs::exists(dir.path / "p.json"));
}

TEST(RunSignalsE2e, ClosedStdoutKeepsTheRunAndItsFiles) {
  TempDir dir("sig_pipe");
  Sim sim({"--ttft-ms", "1", "--itl-ms", "1"}, dir.path);
  ASSERT_NE(sim.port(), 0);
  int pipe_fd[2];
  ASSERT_EQ(::pipe(pipe_fd), 0);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(pipe_fd[0]);
    if (::chdir(dir.path.c_str()) != 0) ::_exit(126);
    ::dup2(pipe_fd[1], STDOUT_FILENO);
    const int err = ::open("run.err", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(err, STDERR_FILENO);
    ::unsetenv("OPENAI_API_KEY");
    ::setenv("SB_SELFTEST_CACHE", pinned_selftest_cache().c_str(), 1);  // no probe before the run
    const std::string port = sim.port_text();
    std::vector<std::string> all = {SB_BINARY, "run", "--port", port, "--num-prompts", "30",
                                    "--random-input-len", "4", "--random-output-len", "4", "--concurrency", "1", "2",
                                    "4", "--output-json", "h.json"};
    std::vector<char*> argv;
    for (auto& a : all) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv(SB_BINARY, argv.data());
    ::_exit(127);
  }
  ::close(pipe_fd[1]);
  // `head -1`: read the first line, then close the pipe.
  std::string first;
  char c = 0;
  while (::read(pipe_fd[0], &c, 1) == 1 && c != '\n') first += c;
  ::close(pipe_fd[0]);
  EXPECT_FALSE(first.empty());
  EXPECT_EQ(wait_exit(pid, 60), 0) << slurp(dir.path / "run.err");
  const Json doc = Json::parse(slurp(dir.path / "h.json"));
  ASSERT_EQ(doc["stages"].size(), 3u);
  EXPECT_EQ(doc["stages"][2]["completed"], 30);
}

}  // namespace
}  // namespace sb::e2e
