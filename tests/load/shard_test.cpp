#include "load/shard.hpp"

#include <algorithm>
#include <limits>
#include <cmath>
#include <map>

#include <gtest/gtest.h>

#include "load/schedule.hpp"

namespace sb {
namespace {

TEST(Shard, ParsesIndexSlashCount) {
  const std::optional<ShardSpec> s = parse_shard("2/4");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->index, 2);
  EXPECT_EQ(s->count, 4);
  EXPECT_FALSE(parse_shard("4/4"));   // index past the last shard
  EXPECT_FALSE(parse_shard("-1/4"));
  EXPECT_FALSE(parse_shard("1/0"));
  EXPECT_FALSE(parse_shard("1"));
  EXPECT_FALSE(parse_shard("1/4x"));
  EXPECT_FALSE(parse_shard("/4"));
}

TEST(Shard, ValidateNamesTheField) {
  EXPECT_TRUE(validate(ShardSpec{0, 1}).empty());
  const Problems bad_count = validate(ShardSpec{0, 0});
  ASSERT_EQ(bad_count.size(), 1u);
  EXPECT_EQ(bad_count[0].field, "shard.count");
  const Problems bad_index = validate(ShardSpec{3, 3});
  ASSERT_EQ(bad_index.size(), 1u);
  EXPECT_EQ(bad_index[0].field, "shard.index");
}

// Known answers: 10 slots over 4 shards are 3 3 2 2; the remainder goes to the first shards.
TEST(Shard, ConcurrencyRemaindersGoToTheFirstShards) {
  const int expected[] = {3, 3, 2, 2};
  for (int i = 0; i < 4; ++i) EXPECT_EQ(shard_concurrency(10, ShardSpec{i, 4}), expected[i]) << i;
  EXPECT_EQ(shard_concurrency(8, ShardSpec{3, 4}), 2);
  EXPECT_EQ(shard_concurrency(1, ShardSpec{0, 4}), 1);
  EXPECT_EQ(shard_concurrency(1, ShardSpec{1, 4}), 0);
}

TEST(Shard, SharesAddUpToTheWholeLimit) {
  for (int n = 1; n <= 7; ++n)
    for (int c = 1; c <= 40; ++c) {
      int sum = 0;
      for (int i = 0; i < n; ++i) sum += shard_concurrency(c, ShardSpec{i, n});
      EXPECT_EQ(sum, c) << c << " over " << n;
    }
}

// Without a limit request i goes to i % N; with limit c to the owner of slot i % c.
TEST(Shard, RequestOwnersKnownAnswers) {
  EXPECT_EQ(shard_requests(10, std::nullopt, ShardSpec{1, 4}), (std::vector<std::size_t>{1, 5, 9}));
  // c = 6 over 4 shards: slots 0..5 belong to shards 0 1 2 3 0 1, so shard 0 has requests 0, 4, 6, 10.
  EXPECT_EQ(shard_requests(12, 6, ShardSpec{0, 4}), (std::vector<std::size_t>{0, 4, 6, 10}));
  EXPECT_EQ(shard_requests(12, 6, ShardSpec{3, 4}), (std::vector<std::size_t>{3, 9}));
}

// A shard's requests are in proportion to its slots: no shard waits on a queue the others lack.
TEST(Shard, RequestsFollowTheSlots) {
  const std::size_t n = 600;
  for (int i = 0; i < 4; ++i) {
    const ShardSpec s{i, 4};
    const auto mine = shard_requests(n, 10, s);
    EXPECT_EQ(mine.size(), n / 10 * static_cast<std::size_t>(shard_concurrency(10, s))) << i;
  }
}

// The union of all shards' slices of one seeded schedule is the schedule, request for request.
TEST(Shard, UnionOfSlicesIsTheSingleSchedule) {
  for (const std::optional<int> limit : {std::optional<int>(), std::optional<int>(5), std::optional<int>(13)}) {
    const ScheduleParams p{257, 40.0, 1.0, 7};
    const std::vector<Nanos> whole = make_schedule(p);
    std::map<std::size_t, Nanos> merged;
    for (int i = 0; i < 4; ++i) {
      const std::vector<Nanos> again = make_schedule(p);  // every shard computes the whole schedule
      for (const std::size_t k : shard_requests(whole.size(), limit, ShardSpec{i, 4})) {
        const bool fresh = merged.emplace(k, again[k]).second;
        EXPECT_TRUE(fresh) << "request " << k << " in two shards";
      }
    }
    ASSERT_EQ(merged.size(), whole.size());
    for (std::size_t k = 0; k < whole.size(); ++k) EXPECT_EQ(merged.at(k), whole[k]) << k;
  }
}

TEST(Shard, OneShardKeepsEverything) {
  EXPECT_EQ(shard_requests(5, 2, ShardSpec{0, 1}).size(), 5u);
  EXPECT_EQ(shard_concurrency(7, ShardSpec{0, 1}), 7);
}

TEST(PlanHasher, DistinguishesPlansAndSplits) {
  PlanHasher a, b, c;
  a.add(std::string_view("ab"));
  a.add(std::string_view("c"));
  b.add(std::string_view("a"));
  b.add(std::string_view("bc"));
  c.add(std::string_view("ab"));
  c.add(std::string_view("c"));
  EXPECT_NE(a.value(), b.value());
  EXPECT_EQ(a.value(), c.value());
  EXPECT_EQ(a.hex().size(), 16u);
  PlanHasher r1, r2;
  r1.add(4.0);
  r2.add(8.0);
  EXPECT_NE(r1.hex(), r2.hex());
}

}  // namespace
}  // namespace sb

#include "load/shard_sizing.hpp"

namespace sb {
namespace {

// Known answers: 400k tokens/s over 4 shards at 100k events per CPU-s with 50 % headroom: 100k per
// shard needs 2 cores; memory 256 MiB + 250 records x (512 + 8 x 128) B + 250 streams x 64 KiB.
TEST(ShardSizing, CoresAndMemoryFromTheCeiling) {
  ShardLoadEstimate e;
  e.shards = 4;
  e.tokens_per_s = 400000;
  e.streams = 1000;
  e.requests_per_stage = 1000;
  e.output_tokens = 128;
  ClientCeiling c;
  c.events_per_cpu_s = 100000;
  const ShardResources r = size_shard(e, c);
  EXPECT_EQ(r.cpu_cores, 2);
  const double mib = 256 + (250 * (512 + 8 * 128) + 250 * 64 * 1024) / (1024.0 * 1024.0);
  EXPECT_EQ(r.memory_mib, static_cast<std::int64_t>(std::ceil(mib)));
  EXPECT_EQ(r.events_per_cpu_s, 100000);
}

TEST(ShardSizing, NoCeilingUsesTheDefaultAndAtLeastOneCore) {
  ShardLoadEstimate e;
  e.shards = 8;
  e.tokens_per_s = 1000;
  const ShardResources r = size_shard(e, std::nullopt);
  EXPECT_EQ(r.cpu_cores, 1);
  EXPECT_EQ(r.events_per_cpu_s, kDefaultEventsPerCpuS);
  EXPECT_EQ(r.memory_mib, 256);
}

}  // namespace
}  // namespace sb
