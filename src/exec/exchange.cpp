// The HTTP exchange of the client's hot path (see exchange.hpp). One of the few translation units
// that include Beast (its HTTP parser).
#include <utility>

#include "exec/exchange.hpp"

#include <algorithm>
#include <boost/beast/http/buffer_body.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <limits>
#include <optional>

#include "exec/runner.hpp"
#include "exec/worker.hpp"

namespace sb {
namespace {

namespace http = boost::beast::http;
using boost::system::error_code;
using Clock = std::chrono::steady_clock;
using Parser = http::response_parser<http::buffer_body>;

constexpr std::size_t kReadChunk = 16 * 1024;  // per connection read buffer step

Clock::duration to_duration(double s) {
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
}

void reset_parser(std::optional<Parser>& p) {
  p.emplace();
  p->body_limit(std::numeric_limits<std::uint64_t>::max());
  p->eager(true);
}

// Empty lines before a status line: a server's extra CRLF after the previous response's last chunk.
void skip_leading_newlines(ReadBuffer& buf) {
  const auto* bytes = static_cast<const char*>(buf.data().data());
  std::size_t n = 0;
  while (n < buf.size() && (bytes[n] == '\r' || bytes[n] == '\n')) ++n;
  buf.consume(n);
}

// Runs the buffered bytes through Beast's parser into the sink. False: stop reading (malformed).
// An interim 1xx response (100 Continue, 103 Early Hints) is parsed and dropped: the parser starts
// over on the bytes after it.
bool feed_parser(PooledConn& c, std::optional<Parser>& parser, std::vector<char>& scratch, Nanos t_ns,
                 error_code& ec) {
  while (c.buf.size() > 0 && !parser->is_done()) {
    Parser& p = *parser;
    const bool had_header = p.is_header_done();
    p.get().body().data = scratch.data();
    p.get().body().size = scratch.size();
    const std::size_t used = p.put(c.buf.data(), ec);
    c.buf.consume(used);
    const std::size_t got = scratch.size() - p.get().body().size;
    if (!had_header && p.is_header_done()) {
      const auto& h = p.get();
      const unsigned status = h.result_int();
      if (status >= 100 && status < 200 && status != 101) {
        reset_parser(parser);
        skip_leading_newlines(c.buf);
        if (ec == http::error::need_more || ec == http::error::need_buffer) ec = {};
        if (ec) return false;
        continue;
      }
      const auto ct = h[http::field::content_type];
      c.sink.on_headers(static_cast<int>(status), std::string_view(h.reason().data(), h.reason().size()),
                        std::string_view(ct.data(), ct.size()));
    }
    if (got > 0 && !c.sink.on_body(std::string_view(scratch.data(), got), t_ns)) return false;
    if (ec == http::error::need_buffer) { ec = {}; continue; }
    if (ec == http::error::need_more) { ec = {}; break; }
    if (ec) return false;
    if (used == 0 && got == 0) break;
  }
  return true;
}

// A read failed with `ec` (or the write did, when `wrote` is false): decides the record's outcome
// and what becomes of the connection.
Attempt read_failed(PooledConn& c, const error_code& ec, bool wrote, const Job& job, Deadline deadline, Parser& p,
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
  if (eof && p.is_header_done()) {
    error_code e2;
    p.put_eof(e2);  // a body delimited by connection close ends here
    if (!e2 && p.is_done()) {
      c.sink.on_complete(now_ns() - job.t0_ns);
      return Attempt::close;
    }
  }
  if (rec.first_byte_ns < 0) {
    if (!wrote) {
      rec.error = "connection failed while sending the request: " + ec.message();
      return Attempt::retry;
    }
    // The peer acknowledged bytes of this request: the server may have read it and started on it.
    // Never sent twice (it would reach the server twice).
    if (c.stream->bytes_acked() > c.acked_before_write) {
      c.sink.on_transport_failure(Outcome::connect_error,
                                  std::string(eof ? "connection closed" : "connection failed: " + ec.message()) +
                                      " after the server received the request, before any response byte"
                                      " (not retried: the server may have processed it)");
      return Attempt::close;
    }
    rec.error = eof ? "" : "connection failed before any response byte: " + ec.message();
    return Attempt::retry;
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
  c.acked_before_write = s.bytes_acked();
  s.expires_at(operation_deadline(ctx.opt, deadline));
  co_await s.write(boost::asio::buffer(c.head), boost::asio::buffer(*job.body), ec);
  const bool wrote = !ec;
  std::optional<Parser> parser;
  reset_parser(parser);
  c.buf.clear();
  while (!ec) {
    s.expires_at(operation_deadline(ctx.opt, deadline));  // the idle limit: every read, between chunks too
    const std::size_t n = co_await s.read_some(c.buf.prepare(kReadChunk), ec);
    const Nanos t_ns = now_ns() - job.t0_ns;  // one clock read per read syscall
    c.buf.commit(n);
    if (n > 0 && rec.first_byte_ns < 0) {
      skip_leading_newlines(c.buf);  // nothing of the response yet: empty lines are no response byte
      if (c.buf.size() > 0) rec.first_byte_ns = t_ns;
    }
    error_code perr;
    if (n > 0 && !feed_parser(c, parser, ctx.body_scratch, t_ns, perr)) {
      if (perr) c.sink.on_transport_failure(Outcome::malformed, "bad HTTP response: " + perr.message());
      co_return Attempt::close;
    }
    if (parser->is_done()) {
      c.sink.on_complete(t_ns);
      co_return parser->keep_alive() && !c.sink.failed() ? Attempt::keep : Attempt::close;
    }
  }
  co_return read_failed(c, ec, wrote, job, deadline, *parser, ctx);
}

}  // namespace sb
