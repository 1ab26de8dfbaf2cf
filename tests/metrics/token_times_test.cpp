#include "metrics/token_times.hpp"

#include <gtest/gtest.h>

#include <cstdint>

namespace sb {
namespace {

TEST(TokenTimes, ExactToTheNanosecondUnderFourSeconds) {
  TokenTimes t;
  t.reserve(4);
  const std::vector<Nanos> in{1'000'000'123, 1'000'000'124, 3'500'000'001, 5'294'967'295};  // span 2^32 - 1 - 123 + ...
  for (const Nanos x : in) t.push_back(x);
  EXPECT_EQ(t.resolution_shift(), 0);
  EXPECT_EQ(t, in);
  EXPECT_EQ(t.front(), 1'000'000'123);
  EXPECT_EQ(t.back(), 5'294'967'295);
  EXPECT_EQ(t.heap_bytes(), 4 * sizeof(std::uint32_t));  // 4 bytes a token, not 8
  Nanos sum = 0;
  for (const Nanos x : t) sum += x;  // iteration by value, in order
  EXPECT_EQ(sum, 1'000'000'123 + 1'000'000'124 + 3'500'000'001 + 5'294'967'295);
}

TEST(TokenTimes, LongerStreamsRoundBelowTheirShift) {
  // 70 s: 70e9 / 2^32 = 16.3, so 5 bits of shift (32 ns) hold it; every time within 32 ns.
  TokenTimes t;
  std::vector<Nanos> in;
  for (Nanos x = 7; x <= 70'000'000'007; x += 999'999'937) in.push_back(x);
  for (const Nanos x : in) t.push_back(x);
  EXPECT_EQ(t.resolution_shift(), 5);
  ASSERT_EQ(t.size(), in.size());
  for (std::size_t i = 0; i < in.size(); ++i) {
    EXPECT_LE(in[i] - t[i], 31) << i;
    EXPECT_GE(in[i] - t[i], 0) << i;
  }
  EXPECT_EQ(t.front(), 7);  // the base is exact
}

TEST(TokenTimes, ATimeBeforeTheFirstIsKept) {
  // Never from a clock, but records are also built by hand: nothing may wrap around.
  TokenTimes t{500, 600};
  t.push_back(100);
  EXPECT_EQ(t, (std::vector<Nanos>{500, 600, 100}));
  t.assign(3, 1);
  EXPECT_EQ(t, (std::vector<Nanos>{1, 1, 1}));
  t = {};
  EXPECT_TRUE(t.empty());
}

TEST(TokenTimes, ScaleStretchesEveryTime) {
  TokenTimes t{2'000, 3'000, 4'000'000'000};
  t.scale(10);  // 40 s now: shift grows, the small ones round within 2^4 ns
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t[0], 20'000);
  EXPECT_NEAR(static_cast<double>(t[1]), 30'000, 16);
  EXPECT_NEAR(static_cast<double>(t[2]), 40'000'000'000.0, 16);
  EXPECT_TRUE(TokenTimes({1, 2}) == TokenTimes({1, 2}));
  TokenTimes moved{100, 250};
  moved.shift(-50);  // exact, whatever the resolution
  EXPECT_EQ(moved, (std::vector<Nanos>{50, 200}));
  EXPECT_FALSE(TokenTimes({1, 2}) == TokenTimes({1, 3}));
}

}  // namespace
}  // namespace sb
