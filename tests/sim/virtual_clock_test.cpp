#include "sim/virtual_clock.hpp"

#include <gtest/gtest.h>

#include "engine_test_util.hpp"
#include "sim/engine_backend.hpp"

namespace sb::sim {
namespace {

TEST(Percentile, MatchesNumpyLinearInterpolation) {
  // numpy.percentile([1, 2, 3, 4], [0, 50, 90, 100]) = [1, 2.5, 3.7, 4]
  const std::vector<double> v = {4, 1, 3, 2};
  EXPECT_DOUBLE_EQ(percentile(v, 0), 1.0);
  EXPECT_DOUBLE_EQ(percentile(v, 50), 2.5);
  EXPECT_DOUBLE_EQ(percentile(v, 90), 3.7);
  EXPECT_DOUBLE_EQ(percentile(v, 100), 4.0);
  EXPECT_EQ(percentile({}, 50), 0.0);
}

TEST(VirtualClock, ClosedLoopKeepsConcurrencyAndFinishesEverything) {
  EngineBackend backend(testing_util::make_config("llama-3.2-1b", "h100"), {});
  const VirtualRun run = run_closed_loop(backend, {4, 40, 16, 10, true});
  ASSERT_EQ(run.requests.size(), 40u);
  int started_at_zero = 0;
  for (const RequestTiming& r : run.requests) {
    EXPECT_EQ(r.output_tokens, 10);
    EXPECT_GT(r.finish_ns, r.first_token_ns);
    started_at_zero += r.arrival_ns == 0 ? 1 : 0;
  }
  EXPECT_EQ(started_at_zero, 4);
  EXPECT_EQ(run.itl_s.size(), 40u * 9);
  EXPECT_GT(run.duration_ns, 0);
}

TEST(VirtualClock, OpenLoopHonoursArrivalTimes) {
  EngineBackend backend(testing_util::make_config("llama-3.2-1b", "h100"), {});
  const std::vector<TimedRequest> reqs = {{{0, 16, 4, true, 0}, 0}, {{1, 16, 4, true, 0}, 5'000'000'000}};
  const VirtualRun run = run_open_loop(backend, reqs);
  EXPECT_EQ(run.requests[1].arrival_ns, 5'000'000'000);
  EXPECT_GT(run.requests[1].first_token_ns, 5'000'000'000);
  // The first request long finished: the second sees an idle engine, same TTFT.
  EXPECT_EQ(run.requests[1].first_token_ns - run.requests[1].arrival_ns, run.requests[0].first_token_ns);
}

}  // namespace
}  // namespace sb::sim
