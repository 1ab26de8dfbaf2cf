#pragma once
// Response text for the simulator's HTTP/1.1 server, sans-I/O: status line and headers, chunked
// transfer framing. Everything appends to a caller-owned buffer so the
// streaming path reuses one std::string per connection and never allocates per token.
//
// Example (one streamed write holding several SSE events):
//   std::string out;
//   std::size_t at = sb::begin_chunk(out);
//   out += "data: {...}\n\n";
//   sb::end_chunk(out, at);
#include <cstddef>
#include <string>
#include <string_view>

namespace sb {

struct ResponseHead {
  int status = 200;
  std::string_view content_type = "application/json";
  bool chunked = false;             // Transfer-Encoding: chunked (SSE); else Content-Length
  std::size_t content_length = 0;   // used when !chunked
  bool keep_alive = true;
};

// "HTTP/1.1 200 OK\r\n...\r\n\r\n"
void append_head(std::string& out, const ResponseHead& head);
std::string_view reason_phrase(int status) noexcept;

// Chunked framing with a fixed-width (8 hex digit, zero padded; RFC 9112 allows leading zeros)
// size field, so the payload can be appended in place and the size patched afterwards.
std::size_t begin_chunk(std::string& out);
void end_chunk(std::string& out, std::size_t begin_pos);
void append_last_chunk(std::string& out);  // "0\r\n\r\n"

// Appends `s` as the body of a JSON string (no surrounding quotes), escaping per RFC 8259.
// Kept for existing callers; new code uses sb::append_json_string (protocol/json_text.hpp), which
// this forwards to, so sb_net links sb_protocol.
void append_json_escaped(std::string& out, std::string_view s);

}  // namespace sb
