// servebench's default x-request-id and the name in the run the simulator draws from.
#include "protocol/request_id.hpp"

#include <gtest/gtest.h>

namespace sb {
namespace {

TEST(RequestId, PrefixIsBenchEightHexDigitsDash) {
  EXPECT_EQ(run_tagged_prefix(42), "bench-0000002a-");
  EXPECT_EQ(run_tagged_prefix(0xdeadbeef), "bench-deadbeef-");
}

TEST(RequestId, NameInRunDropsTheRunTag) {
  EXPECT_EQ(request_name_in_run(run_tagged_prefix(7) + "17"), "17");
  EXPECT_EQ(request_name_in_run("bench-1a2b3c4d-preflight"), "preflight");
  EXPECT_EQ(request_name_in_run("bench-1a2b3c4d-warmup-0"), "warmup-0");
  // Two runs' ids for the same request name the same request.
  EXPECT_EQ(request_name_in_run(run_tagged_prefix(1) + "3"), request_name_in_run(run_tagged_prefix(2) + "3"));
}

TEST(RequestId, OtherIdsStayWhole) {
  EXPECT_EQ(request_name_in_run("myrun-17"), "myrun-17");            // --request-id-prefix myrun-
  EXPECT_EQ(request_name_in_run("bench-17"), "bench-17");            // no tag
  EXPECT_EQ(request_name_in_run("bench-1A2B3C4D-17"), "bench-1A2B3C4D-17");  // not our lowercase hex
  EXPECT_EQ(request_name_in_run("bench-1a2b3c4dx17"), "bench-1a2b3c4dx17");  // no dash after the tag
  EXPECT_EQ(request_name_in_run("bench-1a2b3c4d-"), "bench-1a2b3c4d-");      // nothing after the tag
  EXPECT_EQ(request_name_in_run("bench-1a2b3c"), "bench-1a2b3c");
  EXPECT_EQ(request_name_in_run(""), "");
}

}  // namespace
}  // namespace sb
