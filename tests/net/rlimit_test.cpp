#include "net/rlimit.hpp"

#include <gtest/gtest.h>
#include <sys/resource.h>

#include "core/error.hpp"

namespace sb {
namespace {

TEST(Rlimit, NeverLowersAndReportsTheSoftLimit) {
  rlimit before{};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &before), 0);
  EXPECT_EQ(raise_nofile_limit(16), before.rlim_cur);
  rlimit after{};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &after), 0);
  EXPECT_EQ(after.rlim_cur, before.rlim_cur);
}

TEST(Rlimit, RaisesTheSoftLimitUpToTheHardLimit) {
  rlimit lim{};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &lim), 0);
  if (lim.rlim_max == RLIM_INFINITY || lim.rlim_max < 600) GTEST_SKIP() << "hard limit unsuitable";
  const rlimit saved = lim;
  lim.rlim_cur = 512;
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &lim), 0);
  EXPECT_EQ(raise_nofile_limit(600), 600u);
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &saved), 0);
}

TEST(Rlimit, BeyondTheHardLimitIsAClearUserError) {
  rlimit lim{};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &lim), 0);
  if (lim.rlim_max == RLIM_INFINITY) GTEST_SKIP() << "no hard limit";
  try {
    raise_nofile_limit(lim.rlim_max + 1);
    FAIL() << "expected UserError";
  } catch (const UserError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("hard limit RLIMIT_NOFILE is " + std::to_string(lim.rlim_max)), std::string::npos);
    EXPECT_NE(msg.find("ulimit"), std::string::npos);
  }
}

TEST(Rlimit, NeedsOneFdPerConnectionPlusMargin) {
  EXPECT_EQ(fds_needed_for(10000), 10064u);
}

}  // namespace
}  // namespace sb
