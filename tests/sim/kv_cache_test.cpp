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

}  // namespace
}  // namespace sb::sim
