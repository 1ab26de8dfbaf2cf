// Tests for src/report/run_context.cpp.
#include "report/run_context.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

namespace sb::report {
namespace {

TEST(RunContext, FillEnvironmentDescribesThisMachine) {
  RunContext ctx;
  fill_environment(ctx);
  char host[256] = {};
  ASSERT_EQ(gethostname(host, sizeof host - 1), 0);
  EXPECT_EQ(ctx.hostname, host);
  EXPECT_EQ(ctx.os.rfind("Linux ", 0), 0u);
  EXPECT_GE(ctx.cpu_count, 1);
}

}  // namespace
}  // namespace sb::report
