#include "metrics/test_request.hpp"

#include <string_view>

#include "metrics/failure_cause.hpp"

namespace sb {

namespace {

// The load client's words for a connection that never opened (exec/worker.cpp Worker::Impl::connect);
// any other connect_error is a connection the server opened and then closed or reset.
bool never_connected(std::string_view error) noexcept {
  return error.starts_with("connect to ") || error.starts_with("cannot resolve ") ||
         error.starts_with("TLS handshake ");
}

TestRequestVerdict judge_status(int status) noexcept {
  // A 2xx here is an error event inside the stream (a server that failed mid-answer).
  if (status >= 500 || status == 408 || status == 429 || status / 100 == 2) return TestRequestVerdict::server_failed;
  return TestRequestVerdict::rejected;  // 4xx (the key, the model, the path, the body) and 3xx (the URL)
}

}  // namespace

TestRequestVerdict judge_test_request(const RequestRecord& r) noexcept {
  switch (r.outcome) {
    case Outcome::ok: return TestRequestVerdict::ok;
    case Outcome::cancelled: return TestRequestVerdict::cancelled;
    case Outcome::http_error:
      // A prompt over the context length is the run's configuration, even as an error event inside
      // a 200 stream (llama.cpp's exceed_context_size_error) or under a 5xx.
      if (classify_failure(r.http_status, r.error) == FailureCause::context_length_exceeded)
        return TestRequestVerdict::rejected;
      return judge_status(r.http_status);
    case Outcome::connect_error:
      return never_connected(r.error) ? TestRequestVerdict::unreachable : TestRequestVerdict::server_failed;
    case Outcome::timeout:
      return never_connected(r.error) ? TestRequestVerdict::unreachable : TestRequestVerdict::timed_out;
    case Outcome::dropped:
    case Outcome::malformed:
    case Outcome::no_tokens: return TestRequestVerdict::server_failed;
  }
  return TestRequestVerdict::server_failed;
}

}  // namespace sb
