// Tests for src/pipeline/ceiling_cache.cpp: an entry is found under its own key only, for a day;
// a pinned file's entry is used whatever its key and age; writing replaces only the same key.
#include "pipeline/ceiling_cache.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace sb::pipeline {
namespace {

namespace fs = std::filesystem;

struct CacheDir {
  fs::path path = fs::temp_directory_path() / ("sb_ceiling_cache_" + std::to_string(::getpid()));
  CacheDir() { fs::remove_all(path); }
  ~CacheDir() { fs::remove_all(path); }
};

ClientCeiling ceiling_at(double measured_unix_s, double events) {
  ClientCeiling c;
  c.threads = 2;
  c.events_per_cpu_s = events;
  c.measured_unix_s = measured_unix_s;
  return c;
}

TEST(CeilingCache, KeyAndAgeDecide) {
  CacheDir dir;
  const std::string file = (dir.path / "sub/selftest.json").string();  // the folder is created
  const CeilingKey key = ceiling_key(2);
  EXPECT_FALSE(key.hostname.empty());
  EXPECT_NE(key.build.find(SB_VERSION), std::string::npos);
  EXPECT_FALSE(read_ceiling_cache(file, key, 1000, false));  // no file yet
  ASSERT_TRUE(write_ceiling_cache(file, key, ceiling_at(1000, 5e5)));
  const auto hit = read_ceiling_cache(file, key, 1000 + kCeilingMaxAgeS - 1, false);
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->events_per_cpu_s, 5e5);
  EXPECT_EQ(hit->source, CeilingSource::cache);
  EXPECT_FALSE(read_ceiling_cache(file, key, 1000 + kCeilingMaxAgeS + 1, false));  // a day old
  CeilingKey other = key;
  other.threads = 3;
  EXPECT_FALSE(read_ceiling_cache(file, other, 1001, false));
  other = key;
  other.build += "x";  // another binary
  EXPECT_FALSE(read_ceiling_cache(file, other, 1001, false));
}

TEST(CeilingCache, WritingKeepsOtherKeysAndReplacesItsOwn) {
  CacheDir dir;
  const std::string file = (dir.path / "c.json").string();
  const CeilingKey one = ceiling_key(1), two = ceiling_key(2);
  ASSERT_TRUE(write_ceiling_cache(file, one, ceiling_at(1000, 1e5)));
  ASSERT_TRUE(write_ceiling_cache(file, two, ceiling_at(1000, 2e5)));
  ASSERT_TRUE(write_ceiling_cache(file, one, ceiling_at(1000, 3e5)));
  EXPECT_EQ(read_ceiling_cache(file, one, 1000, false)->events_per_cpu_s, 3e5);
  EXPECT_EQ(read_ceiling_cache(file, two, 1000, false)->events_per_cpu_s, 2e5);
}

TEST(CeilingCache, PinnedFileIgnoresKeyAndAge) {
  CacheDir dir;
  fs::create_directories(dir.path);
  const std::string file = (dir.path / "pinned.json").string();
  std::ofstream(file) << R"({"entries": [{"key": {"threads": 8}, "ceiling": {"threads": 8, "events_per_cpu_s": 7,)"
                         R"( "events_per_s": 1, "requests_per_s": 1, "timestamp_overhead_ns": 1,)"
                         R"( "timer_overshoot_p99_us": 1, "dispatch_lag_p99_ms": 1, "dispatch_rate": 1, "measured_unix_s": 5}}]})";
  const auto c = read_ceiling_cache(file, ceiling_key(2), 1e12, true);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->events_per_cpu_s, 7);
  EXPECT_EQ(c->source, CeilingSource::file);
  EXPECT_FALSE(read_ceiling_cache(file, ceiling_key(8), 1e12, false));  // not this machine's key
  std::ofstream(file) << "{not json";
  EXPECT_FALSE(read_ceiling_cache(file, ceiling_key(2), 10, true));
}

}  // namespace
}  // namespace sb::pipeline
