#include "tokenizer/merge_cache.hpp"

#include <gtest/gtest.h>

#include <thread>

namespace sb::tok {
namespace {

TEST(MergeCache, HitAppendsAndMissLeavesOutputAlone) {
  MergeCache cache;
  const std::int32_t ids[] = {4, 5};
  cache.insert("hello", ids, 2);
  std::vector<std::int32_t> out = {1};
  EXPECT_TRUE(cache.lookup("hello", out));
  EXPECT_EQ(out, (std::vector<std::int32_t>{1, 4, 5}));
  EXPECT_FALSE(cache.lookup("world", out));
  EXPECT_EQ(out.size(), 3u);
}

TEST(MergeCache, LongKeysAreNotCached) {
  MergeCache cache;
  const std::string key(MergeCache::kMaxKeyBytes + 1, 'x');
  const std::int32_t id = 9;
  cache.insert(key, &id, 1);
  std::vector<std::int32_t> out;
  EXPECT_FALSE(cache.lookup(key, out));
}

TEST(MergeCache, ConcurrentInsertAndLookup) {
  MergeCache cache;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&cache] {
      std::vector<std::int32_t> out;
      for (std::int32_t i = 0; i < 2000; ++i) {
        const std::string key = "k" + std::to_string(i);
        cache.insert(key, &i, 1);
        out.clear();
        ASSERT_TRUE(cache.lookup(key, out));
        ASSERT_EQ(out.front(), i);
      }
    });
  }
  for (auto& t : threads) t.join();
}

}  // namespace
}  // namespace sb::tok
