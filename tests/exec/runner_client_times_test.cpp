// Tests for what the runner records about the client itself (metrics/client_use.hpp): the instant a
// concurrency slot freed for a request that was due while every slot was busy, and the worker
// threads' CPU over the stage.
#include <gtest/gtest.h>

#include "exec/runner.hpp"
#include "net/fake_server.hpp"

namespace sb {
namespace {

constexpr Nanos kSlotMs = 1'000'000;

ClientOptions slot_test_options(std::uint16_t port) {
  ClientOptions opt;
  opt.endpoint = parse_base_url("http://127.0.0.1:" + std::to_string(port));
  opt.threads = 2;
  opt.idle_timeout_s = 5;
  return opt;
}

// One token after `delay_ms`, then [DONE].
bool slow_answer(test::FakeConn& c, int delay_ms) {
  c.sleep_ms(delay_ms);
  return c.send(test::kSseHead) && c.send(test::http_chunk(test::token_event("t", true))) &&
         c.send(test::http_chunk("data: [DONE]\n\n")) && c.send(test::kLastChunk);
}

// One slot, requests due at 0, 5 and 10 ms, each answered after 50 ms: request 1 could only go
// when request 0's slot freed (~50 ms), request 2 when request 1's did (~100 ms).
TEST(RunnerClientTimes, SlotFreeInstantIsRecordedForRequestsThatWaited) {
  test::FakeServer server([](test::FakeConn& c, const test::FakeRequest&) { return slow_answer(c, 50); });
  Runner runner(slot_test_options(server.port()));
  const std::vector<std::string> bodies{"{}"};
  StageInput in;
  in.bodies = &bodies;
  for (int i = 0; i < 3; ++i) in.requests.push_back({"", -1, 1, i * 5 * kSlotMs, 0});
  in.max_concurrency = 1;
  const StageOutput out = runner.run_stage(in, {}, {});
  ASSERT_EQ(out.records.size(), 3u);
  for (const RequestRecord& r : out.records) ASSERT_EQ(r.outcome, Outcome::ok) << r.error;
  EXPECT_EQ(out.records[0].slot_free_ns, 0);  // the slot was free when it was due
  for (std::size_t i = 1; i < 3; ++i) {
    const RequestRecord& prev = out.records[i - 1];
    const RequestRecord& r = out.records[i];
    // Freed when the previous request finished, and this one went right after.
    EXPECT_GE(r.slot_free_ns, prev.token_ns.back()) << i;
    EXPECT_LE(r.slot_free_ns, r.sent_ns) << i;
    EXPECT_GE(r.slot_free_ns, static_cast<Nanos>(i) * 45 * kSlotMs) << i;
    EXPECT_LT(dispatch_lag_ns(r), 20 * kSlotMs) << i;  // the rest of the lag was the slot's
  }
}

TEST(RunnerClientTimes, WorkerThreadTimesCoverTheStage) {
  test::FakeServer server([](test::FakeConn& c, const test::FakeRequest&) { return slow_answer(c, 1); });
  Runner runner(slot_test_options(server.port()));
  EXPECT_EQ(runner.threads(), 2);
  const std::vector<std::string> bodies{"{}"};
  StageInput in;
  in.bodies = &bodies;
  in.requests.assign(40, StageRequest{"", -1, 1, 0, 0});
  in.max_concurrency = 4;
  const StageOutput out = runner.run_stage(in, {}, {});
  const ClientThreadTimes& t = out.client_times;
  EXPECT_EQ(t.threads, 2);
  EXPECT_EQ(t.wall_ns, out.end_ns);
  EXPECT_GT(t.worker_cpu_ns, 0);  // 40 exchanges cost the workers some CPU
  EXPECT_GT(t.busiest_worker_ns, 0);
  EXPECT_LE(t.busiest_worker_ns, t.wall_ns + 50 * kSlotMs);  // one thread cannot be busier than the stage
}

}  // namespace
}  // namespace sb
