// The resend rule (exec/resend_rule.hpp) and the Keep-Alive header's timeout, as known answers:
// each clause of the rule alone, and each boundary of its window.
#include "exec/resend_rule.hpp"

#include <gtest/gtest.h>

#include "exec/keep_alive_header.hpp"

namespace sb {
namespace {

constexpr Nanos kRuleMs = 1'000'000;
constexpr Nanos kWindow = 300 * kRuleMs;

// A first try on a reused connection, written 1 ms after its previous reply, acknowledged, then
// closed with a FIN 2 ms later: llama.cpp's close racing the request.
FailedAttempt racing_close() {
  FailedAttempt a;
  a.first_reuse = true;
  a.idle_ns = 1 * kRuleMs;
  a.closed_after_write_ns = 2 * kRuleMs;
  return a;
}

TEST(ResendRule, ACloseRightAfterAReplyAndRightAfterTheWriteIsTheServersCloseRacingIt) {
  EXPECT_EQ(judge_resend(racing_close(), kWindow), Resend::reply_close);
}

TEST(ResendRule, NeverOnAFreshConnectionOrOnASecondTry) {
  FailedAttempt a = racing_close();
  a.first_reuse = false;
  EXPECT_EQ(judge_resend(a, kWindow), Resend::no);
  a.acked = false;  // not even an unacknowledged one: a resend that fails is the answer
  EXPECT_EQ(judge_resend(a, kWindow), Resend::no);
}

TEST(ResendRule, ARequestThatNeverArrivedGoesAgainWhateverTheTimes) {
  FailedAttempt a = racing_close();
  a.acked = false;
  a.idle_ns = 60'000 * kRuleMs;
  a.closed_after_write_ns = 60'000 * kRuleMs;
  EXPECT_EQ(judge_resend(a, kWindow), Resend::not_received);
  EXPECT_EQ(judge_resend(a, 0), Resend::not_received);  // the window off: this clause stays
  a.acked = true;
  a.wrote = false;
  EXPECT_EQ(judge_resend(a, kWindow), Resend::not_received);
}

TEST(ResendRule, AResetRightAfterTheWriteMeansTheRequestWasUnreadEvenAfterALongIdle) {
  FailedAttempt a = racing_close();
  a.reset = true;
  a.idle_ns = 5000 * kRuleMs;  // uvicorn's idle timeout met the request
  EXPECT_EQ(judge_resend(a, kWindow), Resend::unread_reset);
  a.closed_after_write_ns = kWindow - 1;
  EXPECT_EQ(judge_resend(a, kWindow), Resend::unread_reset);
  a.closed_after_write_ns = kWindow;  // a proxy's reset after its own timeout: it forwarded the request
  EXPECT_EQ(judge_resend(a, kWindow), Resend::no);
}

TEST(ResendRule, AFinAfterTheServerKeptTheConnectionOpenIsNeverSentAgain) {
  FailedAttempt a = racing_close();
  a.idle_ns = kWindow;  // the server had kept it open: it read the request, then closed
  EXPECT_EQ(judge_resend(a, kWindow), Resend::no);
  a.idle_ns = kWindow - 1;
  EXPECT_EQ(judge_resend(a, kWindow), Resend::reply_close);
  a.closed_after_write_ns = kWindow;  // the close came long after the request: it may have run
  EXPECT_EQ(judge_resend(a, kWindow), Resend::no);
  EXPECT_EQ(judge_resend(racing_close(), 0), Resend::no);  // the window off
}

TEST(ResendRule, ACloseRightAfterAReplyIsNotAnIdleTimeout) {
  EXPECT_TRUE(closed_right_after_reply(0, kWindow));
  EXPECT_TRUE(closed_right_after_reply(kWindow - 1, kWindow));
  EXPECT_FALSE(closed_right_after_reply(kWindow, kWindow));
  EXPECT_FALSE(closed_right_after_reply(5000 * kRuleMs, kWindow));
  EXPECT_FALSE(closed_right_after_reply(0, 0));
  EXPECT_FALSE(closed_right_after_reply(-1, kWindow));
}

TEST(KeepAliveHeader, TimeoutInAnyOrderAndCase) {
  EXPECT_EQ(keep_alive_timeout_s("timeout=5, max=100"), 5);  // llama.cpp's server
  EXPECT_EQ(keep_alive_timeout_s("max=100, timeout=15"), 15);
  EXPECT_EQ(keep_alive_timeout_s(" Timeout = 7 ,max=3"), 7);
  EXPECT_EQ(keep_alive_timeout_s("timeout=\"30\""), 30);
  EXPECT_EQ(keep_alive_timeout_s("timeout=0"), 0);
}

TEST(KeepAliveHeader, AbsentOrNotAWholeNumberOfSecondsIsNone) {
  EXPECT_EQ(keep_alive_timeout_s(""), -1);
  EXPECT_EQ(keep_alive_timeout_s("max=100"), -1);
  EXPECT_EQ(keep_alive_timeout_s("timeout"), -1);
  EXPECT_EQ(keep_alive_timeout_s("timeout="), -1);
  EXPECT_EQ(keep_alive_timeout_s("timeout=2.5"), -1);
  EXPECT_EQ(keep_alive_timeout_s("timeout=-1"), -1);
  EXPECT_EQ(keep_alive_timeout_s("timeout=99999999999999999999"), -1);
  EXPECT_EQ(keep_alive_timeout_s("timeouts=5"), -1);
}

}  // namespace
}  // namespace sb
