// The HTTP exchange of the client's hot path (see exchange.hpp).
#include <utility>

#include "exec/exchange.hpp"

#include <algorithm>

#include "exec/resend_rule.hpp"
#include "exec/runner.hpp"
#include "exec/worker.hpp"

namespace sb {
namespace {

using boost::system::error_code;
using Clock = std::chrono::steady_clock;

constexpr std::size_t kReadChunk = 16 * 1024;  // per connection read buffer step

Clock::duration to_duration(double s) {
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
}

// A read failed with `ec` (or the write did, when `wrote` is false): decides the record's outcome
// and what becomes of the connection.
Attempt read_failed(PooledConn& c, const error_code& ec, bool wrote, const Job& job, Deadline deadline,
                    const ExchangeContext& ctx) {
  RequestRecord& rec = *job.record;
  if (c.cancelled || ctx.cancelling) {
    c.sink.on_transport_failure(Outcome::cancelled, "cancelled: the run was stopped");
    return Attempt::close;
  }
  if (is_timeout(ec)) {
    const bool whole = Clock::now() >= deadline;
    c.sink.on_transport_failure(Outcome::timeout,
                                whole ? "no complete response within timeout_s=" + std::to_string(ctx.opt.timeout_s)
                                      : "no data for idle_timeout_s=" + std::to_string(ctx.opt.idle_timeout_s));
    return Attempt::close;
  }
  const bool eof = is_eof(ec);
  if (eof && c.reader.end_at_eof()) {  // a body delimited by connection close ends here
    c.sink.on_complete(now_ns() - job.t0_ns);
    return Attempt::close;
  }
  if (rec.first_byte_ns < 0) {
    // After a FIN the peer's reset (its close with this request unread) shows in the socket's state.
    const bool reset = is_reset(ec) || (eof && c.stream->reset_by_peer());
    FailedAttempt f;
    f.first_reuse = c.first_reuse;
    f.wrote = wrote;
    // The peer acknowledged bytes of this request: the server's socket was open when they came.
    f.acked = c.stream->bytes_acked() > c.acked_before_write;
    f.reset = reset;
    f.idle_ns = c.write_at_ns - c.idle_since_ns;
    f.closed_after_write_ns = now_ns() - c.write_at_ns;
    const bool resend = judge_resend(f, ctx.opt.reply_close_window_ns) != Resend::no;
    std::string why;
    if (!wrote) {
      why = "connection failed while sending the request: " + ec.message();
    } else if (!f.acked || resend) {  // never reached the server, or reached it unread
      why = eof ? "connection closed before any response byte" : "connection failed before any response byte: " + ec.message();
    } else {
      // Never sent twice (it would reach the server twice). On a reused connection the words name
      // the keep-alive (metrics/failure_cause.cpp finds them): the server closing kept-alive
      // connections is what the user can change.
      why = std::string(eof ? (reset ? "connection closed and reset" : "connection closed")
                            : "connection failed: " + ec.message()) +
            " after the server received the request, before any response byte" +
            (c.first_reuse ? ", on a reused keep-alive connection" : "") +
            " (not retried: the server may have processed it)";
    }
    if (resend) {
      rec.error = std::move(why);
      return Attempt::retry;
    }
    c.sink.on_transport_failure(Outcome::connect_error, why);
    return Attempt::close;
  }
  c.sink.on_transport_failure(Outcome::dropped, (eof ? std::string("connection closed") : ec.message()) +
                                                    " mid-response after " +
                                                    std::to_string(rec.token_ns.size()) + " token events");
  return Attempt::close;
}

}  // namespace

Deadline operation_deadline(const ClientOptions& opt, Deadline deadline) {
  if (opt.idle_timeout_s <= 0) return deadline;
  return std::min(deadline, Clock::now() + to_duration(opt.idle_timeout_s));
}

boost::asio::awaitable<Attempt> http_exchange(PooledConn& c, const Job& job, Deadline deadline, ExchangeContext& ctx) {
  RequestRecord& rec = *job.record;
  ByteStream& s = *c.stream;
  error_code ec;
  c.acked_before_write = s.acked_mark();
  s.expires_at(operation_deadline(ctx.opt, deadline));
  co_await s.write(boost::asio::buffer(c.head), boost::asio::buffer(*job.body), ec);
  const bool wrote = !ec;
  c.reader.start();
  c.buf.clear();
  Nanos last_t_ns = 0;
  while (!ec) {
    s.expires_at(operation_deadline(ctx.opt, deadline));  // the idle limit: every read, between chunks too
    const std::size_t n = co_await s.read_some(c.buf.prepare(kReadChunk), ec);
    // One clock read per read syscall. Where the stream has the kernel's receive time (plain TCP,
    // --arrival-time kernel), the bytes are stamped when they reached the machine, not when this
    // thread got to them; never before the previous read's, so token times stay in order.
    const Nanos t_ns = std::max(last_t_ns, s.arrival_ns(now_ns()) - job.t0_ns);
    last_t_ns = t_ns;
    c.buf.commit(n);
    if (n == 0) continue;
    std::string perr;
    const ResponseReader::Step step = c.reader.on_read(c.buf, c.sink, rec, t_ns, perr);
    if (step == ResponseReader::Step::malformed) {
      if (!perr.empty()) c.sink.on_transport_failure(Outcome::malformed, "bad HTTP response: " + perr);
      co_return Attempt::close;
    }
    if (step == ResponseReader::Step::done) {
      c.sink.on_complete(t_ns);
      co_return c.reader.keep_alive() && !c.sink.failed() ? Attempt::keep : Attempt::close;
    }
  }
  co_return read_failed(c, ec, wrote, job, deadline, ctx);
}

}  // namespace sb
