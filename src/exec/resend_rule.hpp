#pragma once
// When a request that failed before any response byte may be sent once more (sans-I/O: times and
// facts in, a verdict out). The evidence and the servers behind each clause: docs/reliability.md,
// "When a request is sent again".
#include "core/clock.hpp"

namespace sb {

// What the worker knows of one attempt that failed before any byte of a response (a response byte
// means the server is working on it: such an attempt is never judged, never sent again).
struct FailedAttempt {
  // The request's first try, on a connection that had served a request before (a fresh
  // connection's failure says nothing of keep-alive; a resend that fails is the server's answer).
  bool first_reuse = false;
  bool wrote = true;            // the request's write completed
  bool acked = true;            // the peer's TCP acknowledged bytes of this request
  bool reset = false;           // the connection ended with a reset (ECONNRESET), not a FIN
  Nanos idle_ns = 0;            // from the end of the connection's previous reply to this write
  Nanos closed_after_write_ns = 0;  // from the write to the close or reset
};

enum class Resend : unsigned char {
  no,            // the server may have read the request: never sent twice
  not_received,  // the write failed, or no byte of it was acknowledged: it never reached the server
  unread_reset,  // a reset right after the write: the server closed with the request unread
  reply_close,   // a close right after the write, itself right after the previous reply: the
                 // server was closing the connection when the request arrived (llama.cpp)
};

// `window_ns` (ClientOptions::reply_close_window_ns) bounds "right after": 0 turns the two timing
// clauses off, leaving only the proof that the request never arrived.
Resend judge_resend(const FailedAttempt& a, Nanos window_ns) noexcept;

// Whether a close of an idle connection `idle_ns` after its reply ended shows a server that closes
// its connections after its replies (not an idle timeout): the pool then opens a new connection
// per request (exec/conn_pool.hpp).
inline bool closed_right_after_reply(Nanos idle_ns, Nanos window_ns) noexcept {
  return window_ns > 0 && idle_ns >= 0 && idle_ns < window_ns;
}

}  // namespace sb
