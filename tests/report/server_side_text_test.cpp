// Console words for the TTFT split and the prompt-cache share (report/server_side_text.hpp).
#include "report/server_side_text.hpp"

#include <gtest/gtest.h>

namespace sb::report {
namespace {

TEST(ServerSideText, PerRequestSplitNamesTheSlotWaitWhenTheServerGaveNoQueue) {
  TtftBreakdown b;
  b.requests = 20;
  b.covered = 1;
  b.client_ttft_mean_ms = 50.51;
  b.server_prefill_mean_ms = 50.2;
  b.rest_mean_ms = 0.31;
  b.rest_median_ms = 0.28;
  EXPECT_EQ(ttft_breakdown_line(b),
            "TTFT split, mean ms (per-request server timings, 20 of the stage's requests): server queue n/a + "
            "server prefill 50.20 + rest (network + client + slot wait) 0.31 (median 0.28) = client TTFT 50.51");
  b.covered = 0.5;
  EXPECT_NE(ttft_breakdown_line(b).find("; 50% of successful requests reported timings"), std::string::npos);
}

TEST(ServerSideText, HistogramSplitShowsTheQueue) {
  const auto b = ttft_breakdown_from_means(100, {.queue_ms = 30, .prefill_ms = 60, .requests = 50});
  ASSERT_TRUE(b);
  EXPECT_EQ(ttft_breakdown_line(*b),
            "TTFT split, mean ms (server /metrics means over 50 requests): server queue 30.00 + server prefill 60.00 + "
            "rest (network + client) 10.00 = client TTFT 100.00");
}

TEST(ServerSideText, PromptCacheWarnsOnlyWhenMostlyCached) {
  PromptCacheShare c{.requests = 4, .prompt_tokens = 4000, .cached_tokens = 3280, .hit_share = 0.82,
                     .mostly_cached = true};
  const auto lines = prompt_cache_lines(c, "c=4");
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0], "c=4: Prompt cache: 82.0% of 4000 prompt tokens served from the server's cache (4 requests)");
  EXPECT_TRUE(lines[1].starts_with("WARNING: c=4: this stage was mostly served from the server's prompt cache"))
      << lines[1];
  c.mostly_cached = false;
  EXPECT_EQ(prompt_cache_lines(c, "").size(), 1u);
}

}  // namespace
}  // namespace sb::report
