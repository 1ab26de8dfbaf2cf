// The resend rule (see resend_rule.hpp).
#include "exec/resend_rule.hpp"

namespace sb {

Resend judge_resend(const FailedAttempt& a, Nanos window_ns) noexcept {
  if (!a.first_reuse) return Resend::no;
  if (!a.wrote || !a.acked) return Resend::not_received;
  if (window_ns <= 0 || a.closed_after_write_ns < 0 || a.closed_after_write_ns >= window_ns) return Resend::no;
  // A kernel answers close() with a reset, not a FIN, when unread bytes wait in the socket: the
  // application never read this request. Within the window only: a proxy that resets on purpose
  // (SO_LINGER 0) does so after its own timeout, seconds after it forwarded the request.
  if (a.reset) return Resend::unread_reset;
  // A FIN (shutdown before close, as llama.cpp's HTTP library does) right after the write, on a
  // connection whose previous reply had just ended: the close began before the request came.
  if (a.idle_ns >= 0 && a.idle_ns < window_ns) return Resend::reply_close;
  return Resend::no;
}

}  // namespace sb
