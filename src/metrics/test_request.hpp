#pragma once
// What a failed test request (the one request `run` sends before the load) says about the target,
// and so what the run does next (docs/run.md step 4, docs/exit-codes.md codes 3 and 7). Sans-I/O:
// a finished RequestRecord in, a verdict out; the pipeline retries and stops, report/ words it.
#include <cstdint>

#include "metrics/request_record.hpp"

namespace sb {

enum class TestRequestVerdict : std::uint8_t {
  ok,
  unreachable,     // no connection: refused, DNS, TLS, connect timeout. Stops at once (exit 3)
  rejected,        // a 4xx but 408/429, a redirect, a prompt over the context length: key, model, path or
                   // body. Stops at once (exit 3)
  server_failed,   // it answered and failed: 5xx, 408, 429, reset/closed, dropped, malformed, no tokens. Retried
  timed_out,       // reachable, no complete answer within the timeout. Not retried: it already waited that long
  cancelled,       // the run was stopped
};

TestRequestVerdict judge_test_request(const RequestRecord& r) noexcept;

// A failure another try may cure: a flaky server's 500 or cut stream, not a wrong key or a 300 s wait.
constexpr bool worth_retrying(TestRequestVerdict v) noexcept { return v == TestRequestVerdict::server_failed; }

// Tries of the test request before a server-side failure counts (1 + retries), and the pause
// before try k+1 (k = 1..): 0.25, 0.5, 1 s, so a failing server costs under 2 s more than now.
inline constexpr int kTestRequestTries = 4;
constexpr double test_request_backoff_s(int failed_tries) noexcept {
  return 0.25 * static_cast<double>(1 << (failed_tries - 1));
}

}  // namespace sb
