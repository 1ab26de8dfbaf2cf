#include "sim/fixed_cost.hpp"

#include <gtest/gtest.h>

#include <map>

#include "core/error.hpp"

namespace sb::sim {
namespace {

constexpr Nanos kMs = 1'000'000;

// Drives the backend in virtual time, waking exactly at every returned deadline; returns each
// request's token times.
std::map<std::uint64_t, std::vector<Nanos>> run_to_idle(FixedCostBackend& b, Nanos from) {
  std::map<std::uint64_t, std::vector<Nanos>> times;
  std::vector<TokenEvent> ev;
  std::optional<Nanos> next = b.advance(from, ev);
  while (next) {
    ev.clear();
    const Nanos now = *next;
    next = b.advance(now, ev);
    for (const auto& e : ev) times[e.id].push_back(now);
  }
  return times;
}

TEST(FixedCost, FirstTokenAfterTtftPlusPrefillThenEveryItl) {
  FixedCostBackend b({.ttft_ms = 100, .prefill_us_per_token = 10, .itl_ms = 20});
  b.submit({.id = 1, .prompt_tokens = 50, .max_tokens = 4}, 0);
  const auto t = run_to_idle(b, 0)[1];
  // 100 ms + 50 * 10 us = 100.5 ms, then +20 ms each.
  EXPECT_EQ(t, (std::vector<Nanos>{100'500'000, 120'500'000, 140'500'000, 160'500'000}));
}

TEST(FixedCost, EventsMarkFirstAndFinished) {
  FixedCostBackend b({.ttft_ms = 1, .itl_ms = 1});
  b.submit({.id = 9, .prompt_tokens = 1, .max_tokens = 3}, 0);
  std::vector<TokenEvent> ev;
  EXPECT_EQ(b.advance(0, ev), std::optional<Nanos>(1 * kMs));
  EXPECT_TRUE(ev.empty());
  // A late wake-up gets every due token, one event each, and no drift: the next deadline stays on
  // the absolute grid.
  EXPECT_EQ(b.advance(3 * kMs + 500'000, ev), std::nullopt);  // tokens due at 1, 2 and 3 ms
  ASSERT_EQ(ev.size(), 3u);
  EXPECT_TRUE(ev[0].first);
  EXPECT_FALSE(ev[0].finished);
  EXPECT_FALSE(ev[1].first);
  EXPECT_TRUE(ev[2].finished);
  EXPECT_EQ(ev[2].id, 9u);
  EXPECT_EQ(b.running(), 0);
}

// The times --dialect llama.cpp reports: a request that waited for the only slot is stamped with
// the instant it got it (its wait is queueing, not prefill), each token with its deadline.
TEST(FixedCost, EventsCarryTheSlotStartAndTheirDeadlines) {
  FixedCostBackend b({.ttft_ms = 10, .itl_ms = 5, .max_concurrency = 1});
  b.submit({.id = 1, .max_tokens = 2}, 0);
  b.submit({.id = 2, .max_tokens = 2}, 0);
  std::vector<TokenEvent> ev;
  b.advance(100 * kMs, ev);  // late: everything due by then
  ASSERT_EQ(ev.size(), 4u);
  EXPECT_EQ(ev[0].started_ns, 0);
  EXPECT_EQ(ev[0].at_ns, 10 * kMs);
  EXPECT_EQ(ev[1].at_ns, 15 * kMs);
  EXPECT_EQ(ev[2].id, 2u);
  EXPECT_EQ(ev[2].started_ns, 15 * kMs);  // the slot freed at request 1's last deadline
  EXPECT_EQ(ev[2].at_ns, 25 * kMs);
  EXPECT_EQ(ev[3].at_ns, 30 * kMs);
}

TEST(FixedCost, AbsoluteDeadlinesDoNotDriftWhenWokenLate) {
  FixedCostBackend b({.ttft_ms = 10, .itl_ms = 10});
  b.submit({.id = 1, .max_tokens = 3}, 0);
  std::vector<TokenEvent> ev;
  b.advance(0, ev);
  // Woken 3 ms late for token 0: token 1 is still due at 20 ms, not 23 ms.
  EXPECT_EQ(b.advance(13 * kMs, ev), std::optional<Nanos>(20 * kMs));
}

TEST(FixedCost, MaxConcurrencyQueuesFifoAndTtftIncludesTheWait) {
  FixedCostBackend b({.ttft_ms = 10, .itl_ms = 5, .max_concurrency = 1});
  b.submit({.id = 1, .max_tokens = 2}, 0);
  b.submit({.id = 2, .max_tokens = 2}, 0);
  b.submit({.id = 3, .max_tokens = 1}, 1 * kMs);
  EXPECT_EQ(b.running(), 1);
  EXPECT_EQ(b.waiting(), 2);
  auto t = run_to_idle(b, 1 * kMs);
  EXPECT_EQ(t[1], (std::vector<Nanos>{10 * kMs, 15 * kMs}));
  EXPECT_EQ(t[2], (std::vector<Nanos>{25 * kMs, 30 * kMs}));  // starts when 1 finishes at 15 ms
  EXPECT_EQ(t[3], (std::vector<Nanos>{40 * kMs}));
  EXPECT_EQ(b.waiting(), 0);
}

TEST(FixedCost, CancelFreesTheSlotAndStopsTokens) {
  FixedCostBackend b({.ttft_ms = 10, .itl_ms = 10, .max_concurrency = 1});
  b.submit({.id = 1, .max_tokens = 100}, 0);
  b.submit({.id = 2, .max_tokens = 1}, 0);
  b.submit({.id = 3, .max_tokens = 1}, 0);
  b.cancel(3, 0);  // cancelled while waiting: never runs
  std::vector<TokenEvent> ev;
  b.advance(10 * kMs, ev);
  ASSERT_EQ(ev.size(), 1u);
  b.cancel(1, 12 * kMs);
  EXPECT_EQ(b.waiting(), 0);
  const auto t = run_to_idle(b, 12 * kMs);
  EXPECT_EQ(t.count(1), 0u);
  EXPECT_EQ(t.at(2), (std::vector<Nanos>{22 * kMs}));
  EXPECT_EQ(t.count(3), 0u);
}

TEST(FixedCost, EosDrawIsSeededGeometricAndIgnoreEosWins) {
  FixedCostBackend b({.seed = 5, .eos_prob = 0.5});
  double sum = 0;
  const int n = 4000;
  for (int i = 0; i < n; ++i) {
    const SimRequest r{.id = 1, .max_tokens = 1000, .seed = static_cast<std::uint64_t>(i)};
    const int len = b.output_length(r);
    EXPECT_EQ(len, b.output_length(r));  // deterministic
    EXPECT_GE(len, 1);
    sum += len;
  }
  EXPECT_NEAR(sum / n, 2.0, 0.1);  // mean of Geometric(0.5) = 1 / 0.5; sd of the mean 0.022
  EXPECT_EQ(b.output_length({.max_tokens = 7, .ignore_eos = true, .seed = 1}), 7);
  FixedCostBackend never({.eos_prob = 0});
  EXPECT_EQ(never.output_length({.max_tokens = 9}), 9);
}

TEST(FixedCost, JitterStaysWithinBoundsAndOrder) {
  FixedCostBackend b({.ttft_ms = 10, .itl_ms = 2, .jitter_ms = 5, .seed = 11});
  b.submit({.id = 1, .max_tokens = 50, .seed = 3}, 0);
  const auto t = run_to_idle(b, 0)[1];
  ASSERT_EQ(t.size(), 50u);
  bool any_late = false;
  for (std::size_t k = 0; k < t.size(); ++k) {
    const Nanos base = 10 * kMs + static_cast<Nanos>(k) * 2 * kMs;
    EXPECT_GE(t[k], base);
    if (k > 0) {
      EXPECT_GE(t[k], t[k - 1]);
    }
    EXPECT_LE(t[k], base + 5 * kMs);  // by induction, as t[k-1] <= base - 2 ms + 5 ms
    any_late |= t[k] > base;
  }
  EXPECT_TRUE(any_late);
}

TEST(FixedCost, MetricsUseVllmNames) {
  FixedCostBackend b({.ttft_ms = 1, .itl_ms = 1});
  b.submit({.id = 1, .prompt_tokens = 12, .max_tokens = 2}, 0);
  run_to_idle(b, 0);
  std::string out;
  b.render_metrics(out, "m");
  EXPECT_NE(out.find("vllm:num_requests_running{model_name=\"m\"} 0\n"), std::string::npos) << out;
  EXPECT_NE(out.find("vllm:prompt_tokens_total{model_name=\"m\"} 12\n"), std::string::npos);
  EXPECT_NE(out.find("vllm:generation_tokens_total{model_name=\"m\"} 2\n"), std::string::npos);
  EXPECT_NE(out.find("vllm:request_success_total{model_name=\"m\",finished_reason=\"length\"} 1\n"),
            std::string::npos);
  EXPECT_NE(out.find("# TYPE vllm:num_requests_waiting gauge"), std::string::npos);
}

TEST(FixedCost, RejectsNegativeCosts) {
  EXPECT_THROW(FixedCostBackend({.ttft_ms = -1}), UserError);
  EXPECT_THROW(FixedCostBackend({.eos_prob = 1.0}), UserError);
  EXPECT_THROW(FixedCostBackend({.max_concurrency = -2}), UserError);
}

}  // namespace
}  // namespace sb::sim
