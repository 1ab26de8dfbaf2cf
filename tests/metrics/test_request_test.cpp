// What a failed test request says about the target: stop at once, try again, or not retried.
#include "metrics/test_request.hpp"

#include <gtest/gtest.h>

namespace sb {
namespace {

RequestRecord test_request_record(Outcome o, int status, std::string error) {
  RequestRecord r;
  r.outcome = o;
  r.http_status = status;
  r.error = std::move(error);
  return r;
}

TestRequestVerdict judged(Outcome o, int status = 0, std::string error = "") {
  return judge_test_request(test_request_record(o, status, std::move(error)));
}

using V = TestRequestVerdict;

TEST(TestRequestVerdict, ConfigurationFaultsStopAtOnce) {
  EXPECT_EQ(judged(Outcome::connect_error, 0, "connect to 127.0.0.1:9 failed: Connection refused"), V::unreachable);
  EXPECT_EQ(judged(Outcome::connect_error, 0, "cannot resolve nohost: Host not found"), V::unreachable);
  EXPECT_EQ(judged(Outcome::connect_error, 0, "TLS handshake with h:443 failed: certificate verify failed"),
            V::unreachable);
  EXPECT_EQ(judged(Outcome::timeout, 0, "connect to 10.0.0.1:80 failed: Operation timed out"), V::unreachable);
  for (const int status : {400, 401, 403, 404, 413, 422, 301})
    EXPECT_EQ(judged(Outcome::http_error, status, "HTTP"), V::rejected) << status;
  // A prompt over the context length, also as an error event inside a 200 stream (llama.cpp).
  EXPECT_EQ(judged(Outcome::http_error, 200, "error event in the stream: exceed_context_size_error"), V::rejected);
  EXPECT_EQ(judged(Outcome::http_error, 500, "This model's maximum context length is 16 tokens"), V::rejected);
  EXPECT_FALSE(worth_retrying(V::unreachable));
  EXPECT_FALSE(worth_retrying(V::rejected));
}

TEST(TestRequestVerdict, ServerSideFailuresAreRetried) {
  for (const int status : {500, 502, 503, 504, 429, 408})
    EXPECT_EQ(judged(Outcome::http_error, status, "HTTP"), V::server_failed) << status;
  // An error event inside a 200 stream (a server that failed mid-answer).
  EXPECT_EQ(judged(Outcome::http_error, 200, "error event in the stream: CUDA out of memory"), V::server_failed);
  EXPECT_EQ(judged(Outcome::dropped, 200, "connection closed mid-response after 2 token events"), V::server_failed);
  EXPECT_EQ(judged(Outcome::malformed, 200, "stream chunk is not valid JSON"), V::server_failed);
  EXPECT_EQ(judged(Outcome::no_tokens, 200), V::server_failed);
  // Connected, then closed or reset before any response byte.
  EXPECT_EQ(judged(Outcome::connect_error, 0, "connection closed before any response byte"), V::server_failed);
  EXPECT_TRUE(worth_retrying(V::server_failed));
}

TEST(TestRequestVerdict, TimeoutIsServerSideButNotRetried) {
  EXPECT_EQ(judged(Outcome::timeout, 0, "no complete response within timeout_s=300"), V::timed_out);
  EXPECT_FALSE(worth_retrying(V::timed_out));
  EXPECT_EQ(judged(Outcome::ok, 200), V::ok);
  EXPECT_EQ(judged(Outcome::cancelled), V::cancelled);
}

TEST(TestRequestVerdict, BackoffDoublesFromAQuarterSecond) {
  EXPECT_EQ(kTestRequestTries, 4);
  EXPECT_DOUBLE_EQ(test_request_backoff_s(1), 0.25);
  EXPECT_DOUBLE_EQ(test_request_backoff_s(2), 0.5);
  EXPECT_DOUBLE_EQ(test_request_backoff_s(3), 1.0);
}

}  // namespace
}  // namespace sb
