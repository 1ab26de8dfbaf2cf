// Tests for src/exec/thread_times.cpp: a thread that spins 60 ms of wall time accrues at least
// most of it as CPU (or runnable) time; one that sleeps 60 ms accrues next to none.
#include "exec/thread_times.hpp"

#include <gtest/gtest.h>

#include <thread>

namespace sb {
namespace {

TEST(ThreadTimes, SpinningCountsSleepingDoesNot) {
  const int tid = current_thread_id();
  const ThreadTimes t0 = thread_times(tid);
  ASSERT_TRUE(t0.known);
  const Nanos start = now_ns();
  volatile std::uint64_t x = 0;
  while (now_ns() - start < 60'000'000) x = x + 1;
  const ThreadTimes t1 = thread_times(tid);
  // On a loaded machine part of the spin is spent runnable, waiting: on-CPU + waiting covers it.
  EXPECT_GE((t1.cpu_ns - t0.cpu_ns) + (t1.wait_ns - t0.wait_ns), 50'000'000);
  std::this_thread::sleep_for(std::chrono::milliseconds(60));
  const ThreadTimes t2 = thread_times(tid);
  EXPECT_LT(t2.cpu_ns - t1.cpu_ns, 20'000'000);
}

TEST(ThreadTimes, UnknownThreadIsNotKnown) {
  EXPECT_FALSE(thread_times(0).known);
  EXPECT_FALSE(thread_times(-5).known);
}

}  // namespace
}  // namespace sb
