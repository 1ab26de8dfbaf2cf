// Server processes: own group, log file, exit status, the SIGINT -> SIGTERM -> SIGKILL ladder, and
// no group member left behind.
#include "orchestrate/server_process.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace sb::orchestrate {
namespace {

namespace fs = std::filesystem;

struct ProcDir {
  fs::path path = fs::temp_directory_path() / ("sb_orch_proc_" + std::to_string(::getpid()));
  ProcDir() { fs::create_directories(path); }
  ~ProcDir() { fs::remove_all(path); }
};

std::string proc_slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

ServerProcess start_sh(const std::string& script, const fs::path& log) {
  int error = 0;
  std::optional<ServerProcess> p = ServerProcess::start(SpawnSpec{{"/bin/sh", "-c", script}, log}, error);
  EXPECT_EQ(error, 0);
  if (!p) throw std::runtime_error("spawn failed");
  return std::move(*p);
}

bool wait_until_exited(ServerProcess& p, double timeout_s) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  while (!p.exited() && std::chrono::steady_clock::now() < end)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return p.exited();
}

bool wait_for_text(const fs::path& p, const std::string& text) {
  for (int i = 0; i < 300; ++i) {
    if (proc_slurp(p).find(text) != std::string::npos) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

TEST(ServerProcess, OwnGroupLogAndExitStatus) {
  ProcDir d;
  ServerProcess p = start_sh("echo out; echo err >&2; exit 3", d.path / "log");
  EXPECT_EQ(::getpgid(p.pid()), p.pid());  // the leader of its own group
  ASSERT_TRUE(wait_until_exited(p, 5));
  ASSERT_TRUE(p.exit_status());
  EXPECT_EQ(p.exit_status()->code, 3);
  EXPECT_EQ(proc_slurp(d.path / "log"), "out\nerr\n");
  EXPECT_EQ(p.stop(StopTimeouts{}).leader, StopStep::already_exited);
}

TEST(ServerProcess, SigintIsEnoughForAWellBehavedServer) {
  ProcDir d;
  ServerProcess p = start_sh("trap 'echo got INT; exit 0' INT; echo up; while :; do sleep 0.05; done", d.path / "log");
  ASSERT_TRUE(wait_for_text(d.path / "log", "up"));
  const StopReport r = p.stop(StopTimeouts{5, 5, 5});
  EXPECT_EQ(r.leader, StopStep::sigint);
  EXPECT_FALSE(group_alive(p.pid()));
  EXPECT_NE(proc_slurp(d.path / "log").find("got INT"), std::string::npos);
}

TEST(ServerProcess, IgnoredSigintEscalatesToSigterm) {
  ProcDir d;
  ServerProcess p = start_sh("trap '' INT; echo up; while :; do sleep 0.05; done", d.path / "log");
  ASSERT_TRUE(wait_for_text(d.path / "log", "up"));
  const auto t0 = std::chrono::steady_clock::now();
  const StopReport r = p.stop(StopTimeouts{0.3, 5, 5});
  EXPECT_EQ(r.leader, StopStep::sigterm);
  EXPECT_GE(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 0.3);
  ASSERT_TRUE(p.exit_status());
  EXPECT_EQ(p.exit_status()->signal, SIGTERM);
  EXPECT_FALSE(group_alive(p.pid()));
}

TEST(ServerProcess, IgnoredSigintAndSigtermEscalateToSigkill) {
  ProcDir d;
  ServerProcess p = start_sh("trap '' INT TERM; echo up; while :; do sleep 0.05; done", d.path / "log");
  ASSERT_TRUE(wait_for_text(d.path / "log", "up"));
  EXPECT_EQ(p.stop(StopTimeouts{0.2, 0.2, 5}).leader, StopStep::sigkill);
  EXPECT_FALSE(group_alive(p.pid()));
}

TEST(ServerProcess, GroupMembersThatOutliveTheLeaderAreTerminated) {
  become_child_reaper();  // the orphaned sleep becomes ours to reap, as under tune
  ProcDir d;
  // A group member that ignores SIGINT outlives the leader. It says so only once it ignores it: a
  // plain `sleep 30 &` is set to ignore SIGINT by the shell after the fork, and a SIGINT sent before
  // that kills it (the test then saw no straggler under load).
  ServerProcess p = start_sh("(trap '' INT; echo bg; exec sleep 30) & echo up; while :; do sleep 0.05; done", d.path / "log");
  ASSERT_TRUE(wait_for_text(d.path / "log", "up"));
  ASSERT_TRUE(wait_for_text(d.path / "log", "bg"));
  const StopReport r = p.stop(StopTimeouts{5, 5, 5});
  EXPECT_EQ(r.leader, StopStep::sigint);
  EXPECT_TRUE(r.stragglers);
  EXPECT_EQ(::kill(-p.pid(), 0), -1);
  EXPECT_EQ(errno, ESRCH);
}

TEST(ServerProcess, ACommandNotFoundIsAnErrno) {
  ProcDir d;
  int error = 0;
  EXPECT_FALSE(ServerProcess::start(SpawnSpec{{"sb-no-such-server-here"}, d.path / "log"}, error));
  EXPECT_EQ(error, ENOENT);
}

TEST(ServerProcess, DestructorStopsARunningServer) {
  ProcDir d;
  pid_t pid = -1;
  {
    ServerProcess p = start_sh("echo up; while :; do sleep 0.05; done", d.path / "log");
    ASSERT_TRUE(wait_for_text(d.path / "log", "up"));
    pid = p.pid();
  }
  EXPECT_FALSE(group_alive(pid));
}

}  // namespace
}  // namespace sb::orchestrate
