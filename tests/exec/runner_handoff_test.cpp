// Tests for the runner's hand-off on completion (exec/runner.cpp, Runner::Impl::finished): a
// completion that frees a slot while the next request is due starts that request on the finishing
// worker, without a round trip through the dispatcher thread, and keeps the schedule's rules (FIFO
// order, the slot limit, never before the intended time).
#include <sys/resource.h>

#include <gtest/gtest.h>

#include "exec/runner.hpp"
#include "net/fake_server.hpp"

namespace sb {
namespace {

constexpr Nanos kMsHandoff = 1'000'000;

ClientOptions handoff_options(std::uint16_t port, int threads) {
  ClientOptions opt;
  opt.endpoint = parse_base_url("http://127.0.0.1:" + std::to_string(port));
  opt.threads = threads;
  opt.idle_timeout_s = 5;
  return opt;
}

// After `delay_ms`, two token events and [DONE] in one send: the fake server does not set
// TCP_NODELAY, and a second small send waits for the client's delayed ACK (~40 ms).
bool handoff_stream(test::FakeConn& c, int delay_ms) {
  if (delay_ms > 0) c.sleep_ms(delay_ms);
  return c.send(std::string(test::kSseHead) + test::http_chunk(test::token_event("a", false)) +
                test::http_chunk(test::token_event("b", true)) + test::http_chunk("data: [DONE]\n\n") +
                test::kLastChunk);
}

struct HandoffStage {
  std::vector<std::string> bodies{"{}"};
  StageInput in;
  HandoffStage(std::size_t n, int limit) {
    StageRequest q;
    q.expected_output_tokens = 2;
    q.body_index = 0;
    in.bodies = &bodies;
    in.requests.assign(n, q);
    in.max_concurrency = limit;
  }
};

long voluntary_switches_of_this_thread() {
  rusage ru{};
  getrusage(RUSAGE_THREAD, &ru);
  return ru.ru_nvcsw;
}

// The dispatcher is the caller's thread: each time it sleeps is one voluntary context switch. When
// every completion woke it to send the next request, a closed loop of 400 requests made about 400.
TEST(RunnerHandoff, ClosedLoopCompletionsDoNotWakeTheDispatcher) {
  test::FakeServer server([](test::FakeConn& c, const test::FakeRequest&) { return handoff_stream(c, 0); });
  Runner runner(handoff_options(server.port(), 1));
  constexpr std::size_t kRequests = 400;
  const HandoffStage s(kRequests, 4);
  const long before = voluntary_switches_of_this_thread();
  const StageOutput out = runner.run_stage(s.in, {}, {});
  const long sleeps = voluntary_switches_of_this_thread() - before;

  ASSERT_EQ(out.records.size(), kRequests);
  for (std::size_t i = 0; i < kRequests; ++i) {
    EXPECT_EQ(out.records[i].index, i);
    EXPECT_TRUE(out.records[i].ok()) << i << ": " << out.records[i].error;
  }
  EXPECT_EQ(server.requests(), static_cast<int>(kRequests));
  EXPECT_LE(server.max_concurrent(), 4);
  EXPECT_LE(runner.connections_opened(), 4);
  // The progress tick (every 200 ms) and the stage's end still wake it: a few, not one per request.
  EXPECT_LT(sleeps, static_cast<long>(kRequests / 10)) << "dispatcher slept " << sleeps << " times";
}

// Open loop behind a slot limit of 2: requests due every 2 ms, each served in ~10 ms, so most wait
// for a slot and go when one frees. Slots go to them in schedule order (each waiting request's slot
// freed no earlier than the one before it got), never early, never above the limit, and none is
// sent before its slot was free. (Two requests given slots microseconds apart may start on their
// threads in either order, as they could before: sent_ns is stamped where the request starts.)
TEST(RunnerHandoff, OpenLoopWaitingForASlotKeepsTheScheduleRules) {
  test::FakeServer server([](test::FakeConn& c, const test::FakeRequest&) { return handoff_stream(c, 10); });
  Runner runner(handoff_options(server.port(), 2));
  constexpr std::size_t kRequests = 24;
  HandoffStage s(kRequests, 2);
  for (std::size_t i = 0; i < kRequests; ++i) s.in.requests[i].offset_ns = static_cast<Nanos>(i) * 2 * kMsHandoff;
  const StageOutput out = runner.run_stage(s.in, {}, {});

  ASSERT_EQ(out.records.size(), kRequests);
  EXPECT_LE(server.max_concurrent(), 2);
  int waited = 0;
  Nanos last_slot_free_ns = 0;
  for (std::size_t i = 0; i < kRequests; ++i) {
    const RequestRecord& r = out.records[i];
    EXPECT_EQ(r.index, i);
    EXPECT_TRUE(r.ok()) << i << ": " << r.error;
    EXPECT_GE(r.sent_ns, r.intended_ns) << i;
    if (r.slot_free_ns == 0) continue;  // a slot was free when it was due
    ++waited;
    EXPECT_GT(r.slot_free_ns, r.intended_ns) << i;
    EXPECT_GE(r.sent_ns, r.slot_free_ns) << i;
    EXPECT_GE(r.slot_free_ns, last_slot_free_ns) << i;  // FIFO: slots in schedule order
    last_slot_free_ns = r.slot_free_ns;
  }
  // 24 requests of ~10 ms through 2 slots take ~120 ms, the schedule 48 ms: most wait.
  EXPECT_GE(waited, static_cast<int>(kRequests / 2));
}

}  // namespace
}  // namespace sb
