#pragma once
// What the load client is told (ClientOptions), its limits, and the checks a caller runs before a
// Runner starts (exec/runner.hpp).
#include <string>

#include "core/clock.hpp"
#include "core/problem.hpp"
#include "net/endpoint.hpp"
#include "net/http_call.hpp"
#include "protocol/api.hpp"

namespace sb {

struct ClientOptions {
  Endpoint endpoint;
  std::string path = "/v1/completions";   // request path after endpoint.base_path
  Api api = Api::completions;
  HeaderList headers;                     // extra headers, Authorization included (never logged)
  double timeout_s = 21600;               // whole-request limit (vLLM: 6 h)
  double idle_timeout_s = 300;            // max silence between two reads of one response
  int threads = 0;                        // worker threads; 0 = one per usable CPU (resolved_threads)
  bool keep_text = false;                 // keep generated text in records (--save-detailed / re-tokenize)
  double stop_grace_s = 3.0;              // after request_stop(): time in-flight requests get to finish
  // Stamp each read with the kernel's receive time of its bytes (plain TCP, SO_TIMESTAMPNS) rather
  // than the time this client's thread got to it: a busy client thread then adds no latency.
  // false = the read time, as vLLM's client measures (--arrival-time read).
  bool kernel_arrival_times = true;
  // An open-loop request's worker wakes this much before it is due and spins the rest, so a late
  // timer wake-up is not dispatch lag (--dispatch-spin-us); costs up to that much CPU a request.
  Nanos dispatch_spin_ns = 0;
  // A kept-alive connection idle for less than this, which the server kept open across a reused
  // request before, is sent on without first looking at its socket for a close (a recv per request;
  // why that is safe: exec/conn_pool.hpp). 0: always look. A twentieth of the shortest idle
  // timeout of a common server (gunicorn's 2 s); a busy worker's pass over its ready connections
  // alone can take a millisecond, so a much shorter one would still look at most of them.
  Nanos trusted_idle_ns = 100'000'000;
  // How soon after a connection's reply a server's close counts as "closing after its replies"
  // (llama.cpp closes every streamed reply's connection without a `Connection: close`), and how soon
  // after a write a close or reset is taken as that close racing the request, not as the server's
  // answer to it (exec/resend_rule.hpp). Above the 150 ms the slowest such server of the fault
  // suite waits, and a busy client's delay between a reply and the next write on that connection.
  // 0: only a request the server never acknowledged is sent again, and connections are always reused.
  Nanos reply_close_window_ns = 300'000'000;
};

// More worker threads than this only cost memory and context switches (one event loop each serves
// thousands of connections); 100000 would fail to start as an internal error.
inline constexpr int kMaxClientThreads = 1024;
// A millisecond covers a timer's wake-up on a busy VM (p99 0.2 ms, 2026-12-04); more only burns CPU.
inline constexpr Nanos kMaxDispatchSpinNs = 1'000'000;

// The worker threads a Runner starts: opt.threads, or one per usable CPU (core/usable_cpus.hpp) when it is 0.
int resolved_threads(const ClientOptions& opt) noexcept;

// Every problem, by field: timeouts > 0, 0 <= threads <= kMaxClientThreads, stop_grace_s >= 0, path starting with '/'.
Problems validate(const ClientOptions& opt);

}  // namespace sb
