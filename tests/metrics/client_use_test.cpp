// Tests for src/metrics/client_use.cpp and the lag split in summarize.cpp: known answers worked out
// in the comments (times in ms from the stage's t0).
#include "metrics/client_use.hpp"

#include <gtest/gtest.h>

#include "metrics/summarize.hpp"

namespace sb {
namespace {

constexpr Nanos ms_ns(double v) { return static_cast<Nanos>(v * 1e6); }

RequestRecord use_record(double intended, double slot_free, double sent, int tokens) {
  RequestRecord r;
  r.intended_ns = ms_ns(intended);
  r.slot_free_ns = ms_ns(slot_free);
  r.sent_ns = ms_ns(sent);
  for (int k = 1; k <= tokens; ++k) r.token_ns.push_back(ms_ns(sent + k));
  r.done_ns = ms_ns(sent + tokens + 1);
  r.output_tokens = tokens;
  r.token_source = TokenSource::usage_chunk;
  return r;
}

// 3 requests x 100 events over a 0.5 s stage: 600 events/s. Two workers: 0.2 s and 0.3 s on the
// CPU; the busiest was also 0.1 s runnable: (0.3 + 0.1) / 0.5 = 0.8 busy. Ceiling 1000 events per
// CPU-second and thread: 600 / (1000 x 2) = 0.3 of it.
TEST(ClientUse, KnownFractions) {
  const std::vector<RequestRecord> recs{use_record(0, 0, 0, 100), use_record(0, 0, 1, 100), use_record(0, 0, 2, 100)};
  ClientThreadTimes t;
  t.threads = 2;
  t.wall_ns = ms_ns(500);
  t.worker_cpu_ns = ms_ns(500);
  t.busiest_worker_ns = ms_ns(400);
  t.dispatcher_cpu_ns = ms_ns(10);
  ClientCeiling c;
  c.events_per_cpu_s = 1000;
  const ClientUse u = client_use(recs, t, c);
  EXPECT_EQ(u.threads, 2);
  EXPECT_DOUBLE_EQ(u.events_per_s, 600);
  EXPECT_DOUBLE_EQ(u.busiest_thread_busy, 0.8);
  EXPECT_DOUBLE_EQ(u.cpu_s, 0.51);
  ASSERT_TRUE(u.ceiling_fraction);
  EXPECT_DOUBLE_EQ(*u.ceiling_fraction, 0.3);
  EXPECT_FALSE(client_use(recs, t, std::nullopt).ceiling_fraction);
}

TEST(ClientUse, BusyThreadOrCeilingFlagsClientCpu) {
  StageSummary s;
  ClientUse u;
  u.busiest_thread_busy = 0.69;
  u.ceiling_fraction = 0.69;
  apply_client_use(s, u);
  EXPECT_EQ(s.client_limit, ClientLimit::none);
  EXPECT_FALSE(s.client_saturated);
  u.busiest_thread_busy = 0.71;
  apply_client_use(s, u);
  EXPECT_EQ(s.client_limit, ClientLimit::cpu);
  EXPECT_TRUE(s.client_saturated);
  StageSummary s2;
  s2.client_limit = ClientLimit::concurrency_limit;  // from the lag split
  u.busiest_thread_busy = 0.1;
  u.ceiling_fraction = 0.75;
  apply_client_use(s2, u);
  EXPECT_EQ(s2.client_limit, ClientLimit::cpu);  // the CPU outranks the limit
}

// Open loop at 10 ms spacing, one slot; each request waited for the previous one:
//   R0 due 0,  slot free,         sent 0.5 -> dispatch lag 0.5
//   R1 due 10, slot freed at 50,  sent 50.5 -> lag 40.5, dispatch lag 0.5
//   R2 due 20, slot freed at 100, sent 101 -> lag 81,   dispatch lag 1
// Schedule lag p99 = 40.5 + 0.98 x 40.5 = 80.19 > 10: the limit's; dispatch lag p99 = 0.99 < 10.
TEST(ClientUse, LagFromFullSlotsIsTheLimitsNotTheClients) {
  const std::vector<RequestRecord> recs{use_record(0, 0, 0.5, 4), use_record(10, 50, 50.5, 4),
                                        use_record(20, 100, 101, 4)};
  SummarizeParams p;
  p.load.request_rate = 100;
  p.load.max_concurrency = 1;
  p.num_prompts = 3;
  const StageSummary s = summarize(recs, p);
  ASSERT_TRUE(s.schedule_lag && s.dispatch_lag);
  EXPECT_NEAR(s.schedule_lag->p99_ms, 80.19, 1e-9);
  EXPECT_NEAR(s.dispatch_lag->p99_ms, 0.99, 1e-9);
  EXPECT_NEAR(s.dispatch_lag->max_ms, 1, 1e-9);
  EXPECT_EQ(s.client_limit, ClientLimit::concurrency_limit);
  EXPECT_FALSE(s.client_saturated);
}

// The same sends with no slot wait recorded: all of the lag is the client's.
TEST(ClientUse, LagWithFreeSlotsIsTheClients) {
  const std::vector<RequestRecord> recs{use_record(0, 0, 0.5, 4), use_record(10, 0, 50.5, 4), use_record(20, 0, 101, 4)};
  SummarizeParams p;
  p.load.request_rate = 100;
  p.num_prompts = 3;
  const StageSummary s = summarize(recs, p);
  EXPECT_NEAR(s.dispatch_lag->p99_ms, 80.19, 1e-9);
  EXPECT_EQ(s.client_limit, ClientLimit::cpu);
  EXPECT_TRUE(s.client_saturated);
}

}  // namespace
}  // namespace sb
