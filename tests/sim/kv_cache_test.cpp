#include "sim/kv_cache.hpp"

#include <gtest/gtest.h>

namespace sb::sim {
namespace {

TEST(KvCache, GrowsInWholeBlocksAndReleases) {
  KvCache kv(10, 16);
  std::int64_t held = 0;
  EXPECT_EQ(kv.blocks_for_tokens(0), 0);
  EXPECT_EQ(kv.blocks_for_tokens(16), 1);
  EXPECT_EQ(kv.blocks_for_tokens(17), 2);
  ASSERT_TRUE(kv.grow(held, 17));
  EXPECT_EQ(held, 2);
  EXPECT_EQ(kv.free_blocks(), 8);
  ASSERT_TRUE(kv.grow(held, 32));  // still two blocks
  EXPECT_EQ(held, 2);
  EXPECT_DOUBLE_EQ(kv.usage(), 0.2);
  kv.release(held);
  EXPECT_EQ(held, 0);
  EXPECT_EQ(kv.free_blocks(), 10);
}

TEST(KvCache, RefusesWithoutTakingAnything) {
  KvCache kv(3, 16);
  std::int64_t a = 0;
  std::int64_t b = 0;
  ASSERT_TRUE(kv.grow(a, 40));  // 3 blocks
  EXPECT_FALSE(kv.can_grow(b, 1));
  EXPECT_FALSE(kv.grow(b, 1));
  EXPECT_EQ(b, 0);
  EXPECT_EQ(kv.free_blocks(), 0);
  EXPECT_DOUBLE_EQ(kv.usage(), 1.0);
}

// vLLM V1's free queue (block_pool.py, single_type_kv_cache_manager.py `free`): freed blocks join the
// back, a sequence's last block first; new blocks come from the front. So a preempted sequence
// loses its cached blocks only after the blocks freed before it, and from its end.
TEST(KvCache, PreemptedBlocksAreEvictedAfterOlderFreeBlocksLastBlockFirst) {
  KvCache kv(8, 4);
  std::int64_t a = 0;
  std::int64_t b = 0;
  std::int64_t c = 0;
  ASSERT_TRUE(kv.grow(a, 14));  // 4 blocks, the first 3 full
  ASSERT_TRUE(kv.grow(b, 8));   // 2 blocks; 2 never used stay free
  kv.release_cached(1, a, 3);
  EXPECT_EQ(a, 0);
  EXPECT_EQ(kv.free_blocks(), 6);
  EXPECT_EQ(kv.cached_blocks(1), 3);
  ASSERT_TRUE(kv.grow(c, 12));  // the 2 never used, then a's partial 4th block
  EXPECT_EQ(kv.cached_blocks(1), 3);
  ASSERT_TRUE(kv.grow(c, 16));  // evicts a's 3rd block
  EXPECT_EQ(kv.cached_blocks(1), 2);
  kv.release(b);  // behind a's blocks in the queue
  EXPECT_EQ(kv.free_blocks(), 4);
  std::int64_t again = 0;
  kv.reclaim(1, again, 2);
  EXPECT_EQ(again, 2);
  EXPECT_EQ(kv.free_blocks(), 2);
  EXPECT_EQ(kv.cached_blocks(1), 0);
  ASSERT_TRUE(kv.grow(c, 24));  // b's two blocks
  EXPECT_EQ(kv.free_blocks(), 0);
  EXPECT_FALSE(kv.can_grow(c, 25));
}

TEST(KvCache, ForgottenOrUnclaimedCachedBlocksArePlainFreeBlocks) {
  KvCache kv(4, 4);
  std::int64_t a = 0;
  ASSERT_TRUE(kv.grow(a, 16));
  kv.release_cached(1, a, 4);
  kv.forget(1);
  EXPECT_EQ(kv.cached_blocks(1), 0);
  EXPECT_EQ(kv.free_blocks(), 4);
  ASSERT_TRUE(kv.grow(a, 16));
  kv.release_cached(2, a, 4);
  std::int64_t b = 0;
  kv.reclaim(2, b, 1);  // the other 3 stay free, no longer anyone's
  EXPECT_EQ(b, 1);
  EXPECT_EQ(kv.cached_blocks(2), 0);
  EXPECT_EQ(kv.free_blocks(), 3);
  std::int64_t c = 0;
  ASSERT_TRUE(kv.grow(c, 12));
  EXPECT_EQ(kv.free_blocks(), 0);
  kv.release(b);
  kv.release(c);
  EXPECT_EQ(kv.free_blocks(), 4);
  EXPECT_DOUBLE_EQ(kv.usage(), 0.0);
}

}  // namespace
}  // namespace sb::sim
