#pragma once
// One HTTP/1.1 request and its response on one pooled connection: write the request, read the
// response head, stream the de-chunked body into the connection's ResponseSink. Each read is
// stamped once, right after it returns, and that time goes to every token event the read
// completed. The outcome of a failed read is classified here (timeout, dropped, cancelled, a stale
// kept-alive connection to retry). Beast's parser stays inside exchange.cpp.
#include <boost/asio/awaitable.hpp>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "exec/response_sink.hpp"
#include "net/connection.hpp"

namespace sb {

struct ClientOptions;
struct Job;

// Bytes read from a connection and not parsed yet. Grows to one read step once, then is reused:
// no allocation per request or per read.
class ReadBuffer {
 public:
  // Room for `n` more bytes after the unparsed ones.
  boost::asio::mutable_buffer prepare(std::size_t n) {
    if (begin_ == end_) begin_ = end_ = 0;
    if (mem_.size() - end_ < n) {
      if (begin_ > 0) {
        std::memmove(mem_.data(), mem_.data() + begin_, end_ - begin_);
        end_ -= begin_;
        begin_ = 0;
      }
      if (mem_.size() - end_ < n) mem_.resize(end_ + n);
    }
    return {mem_.data() + end_, n};
  }
  void commit(std::size_t n) noexcept { end_ += n; }
  boost::asio::const_buffer data() const noexcept { return {mem_.data() + begin_, end_ - begin_}; }
  std::size_t size() const noexcept { return end_ - begin_; }
  void consume(std::size_t n) noexcept { begin_ = n >= size() ? end_ : begin_ + n; }
  void clear() noexcept { begin_ = end_ = 0; }

 private:
  std::vector<char> mem_;
  std::size_t begin_ = 0, end_ = 0;
};

// A connection of a worker's pool and what it keeps across the requests it serves.
struct PooledConn {
  PooledConn(std::unique_ptr<ByteStream> s, StreamDecoder& decoder, bool keep_text)
      : stream(std::move(s)), sink(decoder, keep_text) {}
  std::unique_ptr<ByteStream> stream;
  ReadBuffer buf;
  ResponseSink sink;
  std::string head;         // request head, reused across requests
  bool connected = false;
  bool used = false;        // served a request before: the server may have closed it meanwhile
  bool cancelled = false;   // closed by Worker::cancel_all()
  std::uint64_t acked_before_write = 0;  // stream->bytes_acked() when the current request was written
};

// What one attempt on one connection left behind.
enum class Attempt { keep, close, retry };

// Per worker, shared by its exchanges (they run one at a time on the worker's thread).
struct ExchangeContext {
  const ClientOptions& opt;
  std::vector<char>& body_scratch;  // de-chunked body bytes of one parser step
  const bool& cancelling;           // the worker is cancelling everything
};

// The deadline of the next operation: the whole-request `deadline`, or sooner when idle_timeout_s
// (the longest silence allowed between two reads) ends first.
Deadline operation_deadline(const ClientOptions& opt, Deadline deadline);

// Sends c.head followed by *job.body on a connected c and reads the whole response into c.sink
// (which begin() has prepared). keep: the response ended cleanly and the connection can serve
// another request; retry: the request cannot have reached the server (the write failed, or the
// connection closed before any response byte and the peer never acknowledged a byte of the
// request), so it may be sent again (rec.error says why it failed here). Interim 1xx responses
// are skipped (RFC 9110 15.2), and so are empty lines before the status line.
boost::asio::awaitable<Attempt> http_exchange(PooledConn& c, const Job& job, Deadline deadline, ExchangeContext& ctx);

}  // namespace sb
