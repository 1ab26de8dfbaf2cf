// Tests for src/metrics/steady_window.cpp on hand-built records whose window, occupancy and
// Little's-law terms are counted by hand: a held plateau, a ramp and a drain, a gap in one slot,
// an open-loop schedule, and a TTFT step the sub-windows must see.
#include "metrics/steady_window.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace sb {
namespace {

constexpr Nanos kSec = 1'000'000'000;

// One successful request sent at `sent_s`, lasting `len_s`, with 10 evenly spaced token events
// (the first after `ttft_s`, the last at the end).
RequestRecord steady_req(double sent_s, double len_s, double ttft_s = 0.1) {
  RequestRecord r;
  r.sent_ns = static_cast<Nanos>(sent_s * kSec);
  r.done_ns = static_cast<Nanos>((sent_s + len_s) * kSec);
  const Nanos first = r.sent_ns + static_cast<Nanos>(ttft_s * kSec);
  for (int i = 0; i < 10; ++i) r.token_ns.push_back(first + (r.done_ns - first) * i / 9);
  r.output_tokens = 10;
  r.token_source = TokenSource::usage_chunk;
  return r;
}

StageLoad closed_loop(int c) {
  StageLoad l;
  l.max_concurrency = c;
  return l;
}

TEST(SteadyWindow, HeldPlateauObeysLittlesLawExactly) {
  // Two slots, ten 1 s requests back to back each: window [0, 9] (last send), 2 in flight throughout,
  // 18 completions in (0, 9] -> 2 req/s; 2 req/s x 1 s = 2 = mean in flight.
  std::vector<RequestRecord> recs;
  for (int slot = 0; slot < 2; ++slot)
    for (int k = 0; k < 10; ++k) recs.push_back(steady_req(k, 1.0));
  const SteadyState s = steady_window(recs, {.load = closed_loop(2)}, 0);
  EXPECT_DOUBLE_EQ(s.window_start_s, 0);
  EXPECT_DOUBLE_EQ(s.window_s, 9);
  ASSERT_TRUE(s.held_fraction);
  EXPECT_DOUBLE_EQ(*s.held_fraction, 1);
  EXPECT_DOUBLE_EQ(s.mean_in_flight, 2);
  EXPECT_EQ(s.target_in_flight, 2);
  EXPECT_EQ(s.completed, 18);
  EXPECT_EQ(s.started, 20);
  EXPECT_DOUBLE_EQ(s.request_throughput, 2);
  EXPECT_DOUBLE_EQ(s.littles_law_ratio, 1);
  EXPECT_NEAR(s.ttft.mean_ms, 100, 1e-6);
  EXPECT_NEAR(s.e2el.percentile_ms(99), 1000, 1e-6);
  EXPECT_NEAR(s.tpot.median_ms, 100, 1e-6);  // (1000 - 100) ms / 9
  EXPECT_NEAR(s.itl.mean_ms, 100, 1e-6);
  EXPECT_EQ(s.sub_request_throughput.size(), 4u);
  EXPECT_FALSE(s.rate_fraction);
}

TEST(SteadyWindow, RampAndDrainAreLeftOut) {
  // Four slots filling every 0.5 s (ramp), 2 s requests back to back, five per slot: the 4th slot's
  // first send (1.5 s) opens the window, the last send (9.5 s) closes it; the slots then drain
  // until 11.5 s. Completions in (1.5, 9.5]: 4 per slot -> 16 / 8 s = 2 req/s; 2 x 2 s = 4 in flight.
  std::vector<RequestRecord> recs;
  for (int slot = 0; slot < 4; ++slot)
    for (int k = 0; k < 5; ++k) recs.push_back(steady_req(slot * 0.5 + 2 * k, 2.0));
  const SteadyState s = steady_window(recs, {.load = closed_loop(4)}, 0);
  EXPECT_DOUBLE_EQ(s.window_start_s, 1.5);
  EXPECT_DOUBLE_EQ(s.window_s, 8);
  EXPECT_DOUBLE_EQ(*s.held_fraction, 1);
  EXPECT_DOUBLE_EQ(s.mean_in_flight, 4);
  EXPECT_EQ(s.completed, 16);
  EXPECT_EQ(s.started, 17);
  EXPECT_DOUBLE_EQ(s.request_throughput, 2);
  EXPECT_DOUBLE_EQ(s.littles_law_ratio, 1);
  // Output tokens: the token events of the construction (slot j, request k, event i at
  // 0.5 j + 2 k + 0.1 + 1.9 i / 9 s) that fall in [1.5, 9.5], one token each.
  int inside = 0;
  for (int j = 0; j < 4; ++j)
    for (int k = 0; k < 5; ++k)
      for (int i = 0; i < 10; ++i) {
        const double t = 0.5 * j + 2 * k + 0.1 + 1.9 * i / 9;
        inside += (t >= 1.5 - 1e-9 && t <= 9.5 + 1e-9) ? 1 : 0;
      }
  EXPECT_GT(inside, 150);
  EXPECT_NEAR(s.output_throughput, inside / 8.0, 1e-9);
}

TEST(SteadyWindow, IssueEndGivenByTheDeadline) {
  // The same plateau, cut at a --stage-seconds deadline of 5 s instead of the last send.
  std::vector<RequestRecord> recs;
  for (int k = 0; k < 10; ++k) recs.push_back(steady_req(k, 1.0));
  SteadyParams p{.load = closed_loop(1), .issue_end_ns = 5 * kSec, .duration_bounded = true};
  const SteadyState s = steady_window(recs, p, 0);
  EXPECT_DOUBLE_EQ(s.window_s, 5);
  EXPECT_EQ(s.completed, 5);  // done at 1..5
  EXPECT_TRUE(s.duration_bounded);
}

TEST(SteadyWindow, GapInOneSlotLowersHeldFraction) {
  // Slot 0 busy [0, 10); slot 1 busy [0, 2), idle [2, 3), busy [3, 9): window [0, 9] (last send),
  // target 2 held 8 of 9 s, mean in flight 17/9.
  std::vector<RequestRecord> recs;
  for (int k = 0; k < 10; ++k) recs.push_back(steady_req(k, 1.0));
  for (double t : {0.0, 3.0, 5.0, 7.0}) recs.push_back(steady_req(t, 2.0));
  const SteadyState s = steady_window(recs, {.load = closed_loop(2)}, 0);
  EXPECT_DOUBLE_EQ(s.window_s, 9);
  EXPECT_DOUBLE_EQ(*s.held_fraction, 8.0 / 9);
  EXPECT_DOUBLE_EQ(s.mean_in_flight, 17.0 / 9);
}

TEST(SteadyWindow, TargetNeverReachedGivesNoWindow) {
  std::vector<RequestRecord> recs{steady_req(0, 1), steady_req(1, 1)};  // one at a time, limit 4
  recs[1].sent_ns = recs[0].done_ns;
  const SteadyState s = steady_window(recs, {.load = closed_loop(4)}, 0);
  EXPECT_EQ(s.target_in_flight, 2);  // min(limit, sent)
  EXPECT_DOUBLE_EQ(s.window_s, 0);
  EXPECT_FALSE(s.held_fraction);
}

TEST(SteadyWindow, OpenLoopWindowIsTheSchedule) {
  // 4 req/s for 10 s (41 arrivals at 0, 0.25, ..., 10), 0.5 s each, sent on time. Window [0, 10]:
  // 39 done in (0, 10] -> 3.9 req/s; in flight: 39 x 0.5 s + 0.25 s (sent at 9.75) over 10 s.
  std::vector<RequestRecord> recs;
  for (int k = 0; k <= 40; ++k) {
    recs.push_back(steady_req(k * 0.25, 0.5));
    recs.back().intended_ns = recs.back().sent_ns;
  }
  StageLoad load;
  load.request_rate = 4;
  const SteadyState s = steady_window(recs, {.load = load}, 3.0);
  EXPECT_DOUBLE_EQ(s.window_s, 10);
  EXPECT_FALSE(s.held_fraction);
  EXPECT_EQ(s.completed, 39);
  EXPECT_NEAR(s.request_throughput, 3.9, 1e-12);
  EXPECT_NEAR(s.mean_in_flight, 1.975, 1e-12);
  EXPECT_NEAR(*s.rate_fraction, 0.75, 1e-12);
  EXPECT_NEAR(*s.steady_rate_fraction, 0.975, 1e-12);
  EXPECT_NEAR(s.littles_law_ratio, 3.9 * 0.5 / 1.975, 1e-12);  // 41 started, mean 0.5 s
}

TEST(SteadyWindow, SubWindowsSeeATtftStep) {
  // One slot, eight 1 s requests; TTFT 100 ms for the first four, 300 ms after. Window [0, 7] in
  // four 1.75 s parts: sends {0,1} {2,3} {4,5} {6,7} -> medians 100 100 300 300, spread 200/200.
  std::vector<RequestRecord> recs;
  for (int k = 0; k < 8; ++k) recs.push_back(steady_req(k, 1.0, k < 4 ? 0.1 : 0.3));
  const SteadyState s = steady_window(recs, {.load = closed_loop(1)}, 0);
  ASSERT_EQ(s.sub_ttft_median_ms.size(), 4u);
  EXPECT_NEAR(s.sub_ttft_median_ms[0], 100, 1e-6);
  EXPECT_NEAR(s.sub_ttft_median_ms[3], 300, 1e-6);
  EXPECT_NEAR(s.ttft_spread, 1.0, 1e-9);
  // Completions (1..7 s) per part: {1} {2,3} {4,5} {6,7} -> 1, 2, 2, 2 per 1.75 s.
  EXPECT_EQ(s.sub_min_completed, 1);
  EXPECT_NEAR(s.throughput_spread, (2 - 1) / 1.75 / (7.0 / 4 / 1.75), 1e-9);
}

}  // namespace
}  // namespace sb
