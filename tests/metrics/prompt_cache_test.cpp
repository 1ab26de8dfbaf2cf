// Per-stage prompt-cache share and the "mostly cached" flag (metrics/prompt_cache.hpp).
#include "metrics/prompt_cache.hpp"

#include <gtest/gtest.h>

namespace sb {
namespace {

RequestRecord cached_request(int prompt, int cached) {
  RequestRecord r;
  r.sent_ns = 0;
  r.token_ns = {1000};
  r.prompt_tokens = prompt;
  r.cached_prompt_tokens = cached;
  return r;
}

TEST(PromptCache, ShareIsOverTokensOfTheRequestsThatReported) {
  RequestRecord failed = cached_request(1000, 1000);
  failed.outcome = Outcome::dropped;
  const auto c = prompt_cache_share({cached_request(100, 0), cached_request(300, 200), cached_request(500, -1), failed});
  ASSERT_TRUE(c);
  EXPECT_EQ(c->requests, 2);
  EXPECT_EQ(c->prompt_tokens, 400);
  EXPECT_EQ(c->cached_tokens, 200);
  EXPECT_DOUBLE_EQ(c->hit_share, 0.5);
  EXPECT_FALSE(c->mostly_cached);  // exactly half is not "mostly"
}

TEST(PromptCache, MostlyCachedAboveHalf) {
  const auto c = prompt_cache_share({cached_request(100, 64), cached_request(100, 40)});
  ASSERT_TRUE(c);
  EXPECT_DOUBLE_EQ(c->hit_share, 0.52);
  EXPECT_TRUE(c->mostly_cached);
  EXPECT_FALSE(prompt_cache_share({cached_request(100, 64)}, 0.7)->mostly_cached);
}

TEST(PromptCache, CachedCountIsCappedAtThePromptAndAbsentWhenNeverReported) {
  EXPECT_DOUBLE_EQ(prompt_cache_share({cached_request(10, 12)})->hit_share, 1.0);
  EXPECT_FALSE(prompt_cache_share({cached_request(100, -1)}));
  EXPECT_FALSE(prompt_cache_share({}));
}

}  // namespace
}  // namespace sb
