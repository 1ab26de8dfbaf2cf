// validate(ClientOptions): the client's own parameters, by field.
#include "exec/runner.hpp"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace sb
