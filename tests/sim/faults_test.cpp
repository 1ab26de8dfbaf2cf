#include "sim/faults.hpp"

#include <gtest/gtest.h>

#include <string>

#include "core/error.hpp"

namespace sb::sim {
namespace {

TEST(Faults, DisabledPicksNothing) {
  FaultInjector f({});
  EXPECT_FALSE(f.enabled());
  EXPECT_EQ(f.pick("r1", 10).kind, FaultKind::none);
}

TEST(Faults, SameSeedAndKeySameDecision) {
  const FaultOptions o{.fail_ratio = 0.3, .fail_status = 503, .drop_ratio = 0.3, .malformed_ratio = 0.3, .seed = 7};
  FaultInjector a(o), b(o);
  for (int i = 0; i < 200; ++i) {
    const std::string key = "bench-" + std::to_string(i);
    EXPECT_EQ(a.pick(key, 16).kind, b.pick(key, 16).kind);
    EXPECT_EQ(a.pick(key, 16).after_tokens, b.pick(key, 16).after_tokens);
  }
}

TEST(Faults, DifferentSeedDifferentDecisions) {
  FaultInjector a({.fail_ratio = 0.5, .seed = 1}), b({.fail_ratio = 0.5, .seed = 2});
  int differ = 0;
  for (int i = 0; i < 200; ++i) {
    const std::string key = std::to_string(i);
    differ += a.pick(key, 4).kind != b.pick(key, 4).kind;
  }
  EXPECT_GT(differ, 50);  // independent fair coins differ ~100 times in 200
}

TEST(Faults, RatiosConvergeAndPartition) {
  FaultInjector f({.fail_ratio = 0.1, .fail_status = 429, .drop_ratio = 0.2, .malformed_ratio = 0.05, .seed = 3});
  const int n = 20000;
  int fail = 0, drop = 0, bad = 0;
  for (int i = 0; i < n; ++i) {
    const FaultPlan p = f.pick("req-" + std::to_string(i), 64);
    fail += p.kind == FaultKind::fail;
    drop += p.kind == FaultKind::drop;
    bad += p.kind == FaultKind::malformed;
    if (p.kind == FaultKind::drop || p.kind == FaultKind::malformed) {
      EXPECT_GE(p.after_tokens, 1);
      EXPECT_LE(p.after_tokens, 3);
    }
  }
  // Binomial standard deviations: sqrt(n p (1-p)) = 42, 57, 31: allow about 4 of them.
  EXPECT_NEAR(fail, 2000, 170);
  EXPECT_NEAR(drop, 4000, 230);
  EXPECT_NEAR(bad, 1000, 125);
  EXPECT_EQ(f.fail_status(), 429);
}

TEST(Faults, RatioOneAlwaysFails) {
  FaultInjector f({.drop_ratio = 1.0});
  for (int i = 0; i < 50; ++i) EXPECT_EQ(f.pick(std::to_string(i), 8).kind, FaultKind::drop);
}

TEST(Faults, AfterTokensNeverExceedsMaxTokens) {
  FaultInjector f({.malformed_ratio = 1.0});
  for (int i = 0; i < 50; ++i) EXPECT_EQ(f.pick(std::to_string(i), 1).after_tokens, 1);
}

TEST(Faults, BadOptionsNameTheFlag) {
  auto message = [](const FaultOptions& o) {
    try {
      FaultInjector f(o);
    } catch (const UserError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(message({.fail_ratio = 1.5}).find("--fail-ratio"), std::string::npos);
  EXPECT_NE(message({.drop_ratio = -0.1}).find("--drop-ratio"), std::string::npos);
  EXPECT_NE(message({.fail_ratio = 0.6, .drop_ratio = 0.6}).find("must not exceed 1"), std::string::npos);
  EXPECT_NE(message({.fail_status = 404}).find("--fail-status"), std::string::npos);
}

TEST(Faults, ErrorBodyIsOpenAiShaped) {
  EXPECT_EQ(error_body(503, "busy \"now\""),
            R"({"error":{"message":"busy \"now\"","type":"ServiceUnavailableError","param":null,"code":503}})");
}

TEST(Faults, UnitIntervalBounds) {
  EXPECT_EQ(unit_interval(0), 0.0);
  EXPECT_LT(unit_interval(~0ULL), 1.0);
  EXPECT_NE(hash_key(1, "a"), hash_key(2, "a"));
  EXPECT_NE(hash_key(1, "a"), hash_key(1, "b"));
}

}  // namespace
}  // namespace sb::sim
