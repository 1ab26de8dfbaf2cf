// The words of a failed test request: the stop line, the going-on warning, the recovered note.
#include "report/test_request_text.hpp"

#include <gtest/gtest.h>

#include "report/remedies.hpp"

namespace sb::report {
namespace {

RequestRecord test_request_failed(Outcome o, int status, std::string error) {
  RequestRecord r;
  r.outcome = o;
  r.http_status = status;
  r.error = std::move(error);
  return r;
}

constexpr const char* kUrl = "http://127.0.0.1:8000/v1/completions";

TEST(TestRequestText, ConfigurationFaultIsTheCauseAndTheSkipFlag) {
  const RequestRecord r = test_request_failed(Outcome::http_error, 401, "HTTP 401 Unauthorized: invalid key");
  EXPECT_EQ(format_test_request_stop({kUrl, &r, TestRequestVerdict::rejected, 1}),
            "the test request (POST http://127.0.0.1:8000/v1/completions, built like the run's first) failed "
            "(http_error): HTTP 401 Unauthorized: invalid key; --no-preflight-request skips it");
}

TEST(TestRequestText, ServerFailureCountsTheTriesAndSaysItAnswers) {
  const RequestRecord r = test_request_failed(Outcome::http_error, 500, "HTTP 500 Internal Server Error: boom");
  const std::string line = format_test_request_stop({kUrl, &r, TestRequestVerdict::server_failed, 4});
  EXPECT_EQ(line, "the test request (POST http://127.0.0.1:8000/v1/completions, built like the run's first) failed "
                  "on each of 4 tries, the last (http_error): HTTP 500 Internal Server Error: boom; the server "
                  "answers but fails it: its log says why; --max-failure-ratio 1 measures it anyway, "
                  "--no-preflight-request skips it");
  EXPECT_EQ(line.find('\n'), std::string::npos);
}

TEST(TestRequestText, KnownCauseGetsItsRemedy) {
  const RequestRecord r = test_request_failed(Outcome::http_error, 429, "HTTP 429 Too Many Requests");
  const std::string line = format_test_request_stop({kUrl, &r, TestRequestVerdict::server_failed, 4});
  EXPECT_NE(line.find("HTTP 429 Too Many Requests -> " + remedy(FailureCause::rate_limited)), std::string::npos)
      << line;
}

TEST(TestRequestText, TimeoutSaysNotRetried) {
  const RequestRecord r = test_request_failed(Outcome::timeout, 0, "no complete response within timeout_s=2");
  EXPECT_NE(format_test_request_stop({kUrl, &r, TestRequestVerdict::timed_out, 1})
                .find("failed (timeout): no complete response within timeout_s=2 (not retried); the server answers "
                      "but too slowly"),
            std::string::npos);
}

TEST(TestRequestText, GoingOnAndRecoveredAreWarnings) {
  const RequestRecord r = test_request_failed(Outcome::dropped, 200, "connection closed mid-response after 1 token events");
  EXPECT_EQ(format_test_request_going_on({kUrl, &r, TestRequestVerdict::server_failed, 4}),
            "warning: the test request failed on each of 4 tries, the last (dropped): connection closed "
            "mid-response after 1 token events; going on (--max-failure-ratio 1): the load measures the failures");
  EXPECT_EQ(format_test_request_recovered({kUrl, &r, TestRequestVerdict::server_failed, 2}),
            "warning: the test request failed 2 of 3 tries (dropped): connection closed mid-response after 1 token "
            "events before it passed: the server fails some requests");
}

}  // namespace
}  // namespace sb::report
