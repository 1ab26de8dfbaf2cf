#pragma once
// Turns one HTTP response (status, content type, de-chunked body bytes with their recv times) into
// a RequestRecord: token event times, usage counts and the outcome (sans-I/O, testable without a
// socket). One per connection, reused across requests: no allocation per token once warmed up.
#include <string>
#include <string_view>

#include "core/clock.hpp"
#include "metrics/request_record.hpp"
#include "net/secrets.hpp"  // scrub_secrets(): every stored server message goes through it
#include "protocol/sse_parser.hpp"
#include "protocol/stream_decoder.hpp"

namespace sb {

class ResponseSink {
 public:
  // `decoder` is shared by all sinks of one worker thread (decode results are consumed at once).
  ResponseSink(StreamDecoder& decoder, bool keep_text) : decoder_(&decoder), keep_text_(keep_text) {}

  void begin(RequestRecord& rec);  // start of one attempt; clears what a failed attempt left
  void on_headers(int status, std::string_view reason, std::string_view content_type);
  // Body bytes that arrived in one read at `t_ns` (relative to t0). Returns false once the response
  // is known to be malformed (the caller closes the connection).
  bool on_body(std::string_view bytes, Nanos t_ns);
  // The message ended cleanly at `t_ns`: decides ok / no_tokens / dropped / http_error.
  void on_complete(Nanos t_ns);
  // The transport failed mid-response (after the status line).
  void on_transport_failure(Outcome outcome, std::string error);

  bool failed() const noexcept { return failed_; }
  bool streaming() const noexcept { return sse_; }

 private:
  void on_event(std::string_view data, Nanos t_ns);
  void on_plain_token(std::string_view text, Nanos t_ns);
  void on_token(std::string_view text, bool finished, std::string_view finish_reason, Nanos t_ns);
  void fail(Outcome outcome, std::string error);
  void finish_counts();
  void keep_server_timings(const ChunkInfo& info);

  StreamDecoder* decoder_;
  bool keep_text_;
  RequestRecord* rec_ = nullptr;
  SseParser sse_parser_;
  ChunkShape chunk_shape_;  // this connection's last plain token chunk (kept across its requests)
  std::string body_;  // non-streaming or error bodies (bounded for errors)
  std::string reason_;
  bool sse_ = false;
  bool failed_ = false;
  bool saw_done_ = false;
  bool saw_finish_ = false;
  int usage_prompt_ = -1;
  int usage_completion_ = -1;
  TokenSource usage_source_ = TokenSource::none;
};

}  // namespace sb
