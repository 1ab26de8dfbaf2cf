// Requested vs delivered output and finish reasons of a stage (metrics/output_check.hpp).
#include "metrics/output_check.hpp"

#include <gtest/gtest.h>

#include "metrics/summarize.hpp"

namespace sb {
namespace {

RequestRecord finished(int expected, int delivered, FinishReason why, bool text = true) {
  RequestRecord r;
  r.expected_output_tokens = expected;
  r.output_tokens = delivered;
  r.finish_reason = why;
  r.saw_text = text;
  for (int i = 0; i < std::max(delivered, 1); ++i) r.token_ns.push_back(1000 * (i + 1));
  return r;
}

TEST(OutputCheck, CountsShortfallFinishReasonsAndTextlessStreams) {
  std::vector<RequestRecord> rs = {finished(64, 23, FinishReason::length), finished(64, 64, FinishReason::length),
                                   finished(64, 10, FinishReason::stop), finished(64, 64, FinishReason::none, false)};
  RequestRecord failed = finished(64, 0, FinishReason::none);
  failed.outcome = Outcome::http_error;
  rs.push_back(failed);  // failures count in none of it
  const OutputCheck c = check_outputs(rs);
  EXPECT_EQ(c.requested_tokens, 256);
  EXPECT_EQ(c.delivered_tokens, 23 + 64 + 10 + 64);
  EXPECT_DOUBLE_EQ(c.shortfall, 1.0 - 161.0 / 256.0);
  EXPECT_TRUE(c.short_of_requested);
  EXPECT_EQ(c.short_requests, 2);
  EXPECT_EQ(c.finish_reasons, (std::map<std::string, int>{{"length", 2}, {"stop", 1}, {"none", 1}}));
  EXPECT_EQ(c.without_text, 1);
}

TEST(OutputCheck, ShortfallAtTheThresholdIsNoiseAboveItIsFlagged) {
  // 97 of 100 tokens: exactly 3 % short, not flagged; 96 of 100 is.
  EXPECT_FALSE(check_outputs({finished(100, 97, FinishReason::stop)}).short_of_requested);
  EXPECT_TRUE(check_outputs({finished(100, 96, FinishReason::stop)}).short_of_requested);
  // More than requested (a server ignoring max_tokens) is no shortfall.
  const OutputCheck over = check_outputs({finished(10, 12, FinishReason::length)});
  EXPECT_DOUBLE_EQ(over.shortfall, 0.0);
  EXPECT_EQ(over.short_requests, 0);
  EXPECT_FALSE(check_outputs({}).short_of_requested);
}

TEST(OutputCheck, SummarizeCarriesIt) {
  SummarizeParams p;
  p.num_prompts = 2;
  const StageSummary s = summarize({finished(64, 23, FinishReason::length), finished(64, 23, FinishReason::length)}, p);
  EXPECT_EQ(s.output_check.delivered_tokens, 46);
  EXPECT_EQ(s.output_check.finish_reasons.at("length"), 2);
  EXPECT_TRUE(s.output_check.short_of_requested);
}

}  // namespace
}  // namespace sb
