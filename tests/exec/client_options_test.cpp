// validate(ClientOptions): the client's own parameters, by field.
#include "exec/runner.hpp"

#include <gtest/gtest.h>
#include <sched.h>

#include <algorithm>
#include <thread>

#include "core/usable_cpus.hpp"

namespace sb {
namespace {

TEST(ClientOptionsValidate, DefaultsAreValidAndEveryProblemIsNamed) {
  EXPECT_TRUE(validate(ClientOptions{}).empty());
  ClientOptions o;
  o.path = "v1/completions";
  o.timeout_s = 0;
  o.idle_timeout_s = -1;
  o.threads = -2;
  o.stop_grace_s = -0.5;
  const Problems problems = validate(o);
  std::vector<std::string> fields;
  for (const Problem& p : problems) fields.push_back(p.field);
  EXPECT_EQ(fields, (std::vector<std::string>{"path", "timeout_s", "idle_timeout_s", "threads", "stop_grace_s"}));
  EXPECT_EQ(problems[1].message, "must be > 0, got 0");
}

TEST(ClientOptionsValidate, ThreadsAreCapped) {
  ClientOptions o;
  o.threads = kMaxClientThreads;
  EXPECT_TRUE(validate(o).empty());
  o.threads = 100000;
  const Problems problems = validate(o);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].field, "threads");
  EXPECT_EQ(problems[0].message, "must be <= 1024 (each is an OS thread with its own event loop), got 100000");
}

// The default thread count follows the affinity mask (taskset, a cpuset), not the machine's cores:
// a thread pinned to one CPU sees one, whatever the machine has.
TEST(ClientOptionsThreads, DefaultIsTheCpusTheProcessMayUse) {
  EXPECT_EQ(resolved_threads(ClientOptions{}), usable_cpus());
  ClientOptions o;
  o.threads = 3;
  EXPECT_EQ(resolved_threads(o), 3);
  int pinned = -1, machine = 0;
  std::thread([&] {  // a thread of its own, so the test binary's other threads keep their mask
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(static_cast<int>(sched_getcpu()), &one);
    if (::sched_setaffinity(0, sizeof one, &one) == 0) pinned = resolved_threads(ClientOptions{});
    machine = static_cast<int>(std::thread::hardware_concurrency());
  }).join();
  EXPECT_EQ(pinned, 1);
  EXPECT_LE(usable_cpus(), std::max(1, machine));  // never more than the machine has
}

}  // namespace
}  // namespace sb
