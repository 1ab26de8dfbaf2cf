#include "telemetry/command_output.hpp"

#include <gtest/gtest.h>
#include <pthread.h>
#include <signal.h>

#include <chrono>

namespace sb::telemetry {
namespace {

TEST(CommandOutput, CapturesStdoutAndExitCode) {
  const CommandOutput r = run_command({"sh", "-c", "echo one; echo two >&2; echo three; exit 3"}, 5);
  EXPECT_EQ(r.out, "one\nthree\n");  // stderr is not the tool's output
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_FALSE(r.timed_out);
}

TEST(CommandOutput, KillsAHungTool) {
  const auto t0 = std::chrono::steady_clock::now();
  const CommandOutput r = run_command({"sh", "-c", "echo partial; exec sleep 10"}, 0.3);
  const double took_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_TRUE(r.timed_out);
  EXPECT_EQ(r.exit_code, 128 + 9);
  EXPECT_EQ(r.out, "partial\n");
  EXPECT_LT(took_s, 3);
}

// The run blocks SIGTERM in all its threads; the tool must not inherit that (nor ignored SIGPIPE).
TEST(CommandOutput, ToolStartsWithSignalsUnblocked) {
  sigset_t block, old;
  sigemptyset(&block);
  sigaddset(&block, SIGTERM);
  ASSERT_EQ(pthread_sigmask(SIG_BLOCK, &block, &old), 0);
  const CommandOutput r = run_command({"sh", "-c", "kill -TERM $$; sleep 5; echo survived"}, 10);
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  EXPECT_EQ(r.exit_code, 128 + SIGTERM);
  EXPECT_EQ(r.out, "");
}

TEST(CommandOutput, MissingProgram) {
  const CommandOutput r = run_command({"servebench-no-such-tool"}, 1);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_FALSE(find_on_path("servebench-no-such-tool").has_value());
  const auto sh = find_on_path("sh");
  ASSERT_TRUE(sh.has_value());
  EXPECT_EQ(sh->back(), 'h');
}

}  // namespace
}  // namespace sb::telemetry
