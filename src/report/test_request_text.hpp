#pragma once
// Words about the test request `run` sends before the load (metrics/test_request.hpp judges it):
// the line that stops the run, the warning when the run goes on anyway, and the note when it passed
// only after a retry. Each one line, no newline.
#include <string>

#include "metrics/request_record.hpp"
#include "metrics/test_request.hpp"

namespace sb::report {

struct TestRequestFailure {
  std::string url;              // POST target, e.g. http://127.0.0.1:8000/v1/completions
  const RequestRecord* last{};  // the last failed try
  TestRequestVerdict verdict{};
  int failed_tries = 1;
};

// "the test request (POST URL, built like the run's first) failed (http_error): HTTP 401 ...; --no-preflight-request
// skips it"; after retries "failed on each of 4 tries, the last (http_error): ...: the server answers but fails ...".
std::string format_test_request_stop(const TestRequestFailure& f);

// "warning: the test request failed on each of 4 tries, ...; going on (--max-failure-ratio 1): the load measures the failures".
std::string format_test_request_going_on(const TestRequestFailure& f);

// "warning: the test request failed 1 of 2 tries (http_error: HTTP 500 ...) before it passed: the server fails some requests".
std::string format_test_request_recovered(const TestRequestFailure& f);

}  // namespace sb::report
