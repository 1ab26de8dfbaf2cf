#pragma once
// The response half of one HTTP/1.1 exchange without the socket: the bytes of each read, split
// however the network split them, through Beast's parser into the connection's ResponseSink.
// Interim 1xx responses (RFC 9110 15.2) and empty lines before a status line (a server's extra
// CRLF after its previous response) are skipped. exchange.cpp drives it from the socket; the tests
// and fuzz/http_response_fuzz.cpp drive it from bytes. Beast stays inside response_reader.cpp.
#include <memory>
#include <string>

#include "core/clock.hpp"
#include "exec/read_buffer.hpp"
#include "exec/response_sink.hpp"
#include "metrics/request_record.hpp"

namespace sb {

class ResponseReader {
 public:
  enum class Step {
    more,       // the response is not complete yet: read again
    done,       // the response ended; the caller completes the sink
    malformed,  // stop reading and close: `error` says why, or is empty when the sink refused the body
  };

  ResponseReader();
  ~ResponseReader();
  ResponseReader(const ResponseReader&) = delete;
  ResponseReader& operator=(const ResponseReader&) = delete;

  void start();  // before each response (one parser per connection, reset per response)
  // The bytes one read committed to `buf`, which returned at `t_ns`: stamps rec.first_byte_ns at
  // the response's first byte, feeds the parser (which hands the de-chunked body bytes to `sink`
  // where they lie in `buf`) and leaves what it did not take in `buf`.
  Step on_read(ReadBuffer& buf, ResponseSink& sink, RequestRecord& rec, Nanos t_ns, std::string& error);
  // The connection ended: true when that ends a body delimited by connection close (HTTP/1.0 and
  // the like), so the response is complete.
  bool end_at_eof();
  bool header_done() const;
  bool keep_alive() const;  // after done: the server lets the connection serve another request
  // After done: the response's `Keep-Alive: timeout=N` (the server's idle limit, s), -1 when none.
  int keep_alive_timeout_s() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace sb
