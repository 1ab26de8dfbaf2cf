#pragma once
// Waiting for a freshly started server to serve: GET /health until it answers 200 (or 404: a
// server without that route), then GET /v1/models until 200, as vLLM loads weights and captures
// graphs before /v1/models answers. Gives up at once when the process has exited (no point
// waiting out the timeout for a server that died of a bad flag), and on a stop request.
#include <functional>
#include <stop_token>

#include "net/endpoint.hpp"

namespace sb::orchestrate {

struct ReadyParams {
  Endpoint endpoint;
  double timeout_s = 600;     // a 70B model on 8 GPUs takes minutes to load
  double poll_s = 0.2;        // between attempts
  double call_timeout_s = 2;  // one HTTP call (a server that accepted but does not answer yet)
};

enum class ReadyState { ready, exited, timed_out, stopped };

struct ReadyResult {
  ReadyState state = ReadyState::timed_out;
  double waited_s = 0;
  int last_http_status = 0;  // the last answer seen (0: none, connection refused)
};

// `has_exited` is polled between attempts (ServerProcess::exited).
ReadyResult wait_ready(const ReadyParams& p, const std::function<bool()>& has_exited, std::stop_token stop);

}  // namespace sb::orchestrate
