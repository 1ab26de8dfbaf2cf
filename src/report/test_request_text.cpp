#include "report/test_request_text.hpp"

#include <fmt/format.h>

#include "metrics/failure_cause.hpp"
#include "report/remedies.hpp"

namespace sb::report {

namespace {

// "(http_error): HTTP 503 Service Unavailable: injected fault -> remedy", the last try's cause.
std::string cause(const RequestRecord& r) {
  const std::string fix = remedy(classify_failure(r.http_status, r.error));
  return fmt::format("({}): {}{}", to_string(r.outcome), r.error, fix.empty() ? "" : " -> " + fix);
}

std::string which_tries(const TestRequestFailure& f) {
  if (f.failed_tries <= 1) return "failed";
  return fmt::format("failed on each of {} tries, the last", f.failed_tries);
}

}  // namespace

std::string format_test_request_stop(const TestRequestFailure& f) {
  const std::string head = fmt::format("the test request (POST {}, built like the run's first) {} {}", f.url,
                                       which_tries(f), cause(*f.last));
  switch (f.verdict) {
    case TestRequestVerdict::server_failed:
      return head + "; the server answers but fails it: its log says why; --max-failure-ratio 1 measures it "
                    "anyway, --no-preflight-request skips it";
    case TestRequestVerdict::timed_out:
      return head + " (not retried); the server answers but too slowly: a larger --timeout-s, or "
                    "--no-preflight-request skips it";
    default: return head + "; --no-preflight-request skips it";
  }
}

std::string format_test_request_going_on(const TestRequestFailure& f) {
  return fmt::format("warning: the test request {} {}; going on (--max-failure-ratio 1): the load measures the failures",
                     which_tries(f), cause(*f.last));
}

std::string format_test_request_recovered(const TestRequestFailure& f) {
  return fmt::format("warning: the test request failed {} of {} tries {} before it passed: the server fails some "
                     "requests",
                     f.failed_tries, f.failed_tries + 1, cause(*f.last));
}

}  // namespace sb::report
