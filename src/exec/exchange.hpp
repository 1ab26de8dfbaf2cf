#pragma once
// One HTTP/1.1 request and its response on one pooled connection: write the request, read the
// response head, stream the de-chunked body into the connection's ResponseSink. Each read is
// stamped once, right after it returns, and that time goes to every token event the read
// completed. The outcome of a failed read is classified here (timeout, dropped, cancelled, a stale
// kept-alive connection to retry). Parsing is response_reader's, without the socket.
#include <boost/asio/awaitable.hpp>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "core/clock.hpp"
#include "exec/read_buffer.hpp"
#include "exec/response_reader.hpp"
#include "exec/response_sink.hpp"
#include "net/connection.hpp"

namespace sb {

struct ClientOptions;
struct Job;

// A connection of a worker's pool and what it keeps across the requests it serves.
struct PooledConn {
  PooledConn(std::unique_ptr<ByteStream> s, StreamDecoder& decoder, bool keep_text)
      : stream(std::move(s)), sink(decoder, keep_text) {}
  std::unique_ptr<ByteStream> stream;
  ReadBuffer buf;
  ResponseReader reader;
  ResponseSink sink;
  std::string head;         // request head, reused across requests
  bool connected = false;
  bool used = false;        // served a request before: the server may have closed it meanwhile
  bool kept_before = false; // a request on it after a first one ended kept alive: the server keeps it open
  Nanos idle_since_ns = 0;  // when it went back to the pool (steady clock)
  // The server's idle limit from its last reply's `Keep-Alive: timeout=N` (ns), 0 = none said.
  Nanos server_idle_limit_ns = 0;
  std::size_t active_slot = 0;  // its place in ConnectionPool's list of connections in use
  bool cancelled = false;   // closed by Worker::cancel_all()
  std::uint64_t acked_before_write = 0;  // stream->acked_mark() before the current request was written
  // Set by the worker before each attempt: the first try of its request on a connection that served
  // one before (only such a try may be sent again), and when the request went (steady clock).
  bool first_reuse = false;
  Nanos write_at_ns = 0;
};

// What one attempt on one connection left behind.
enum class Attempt { keep, close, retry };

// Per worker, shared by its exchanges (they run one at a time on the worker's thread).
struct ExchangeContext {
  const ClientOptions& opt;
  const bool& cancelling;           // the worker is cancelling everything
};

// The deadline of the next operation: the whole-request `deadline`, or sooner when idle_timeout_s
// (the longest silence allowed between two reads) ends first.
Deadline operation_deadline(const ClientOptions& opt, Deadline deadline);

// Sends c.head followed by *job.body on a connected c and reads the whole response into c.sink
// (which begin() has prepared). keep: the response ended cleanly and the connection can serve
// another request; retry: a first try on a reused connection (c.first_reuse) that failed before
// any response byte in a way exec/resend_rule.hpp judges unprocessed, so it may be sent again
// (rec.error says why it failed here). Interim 1xx responses are skipped
// (RFC 9110 15.2), and so are empty lines before the status line.
boost::asio::awaitable<Attempt> http_exchange(PooledConn& c, const Job& job, Deadline deadline, ExchangeContext& ctx);

}  // namespace sb
