#include "net/server_http.hpp"

#include <cstdio>

#include "protocol/json_text.hpp"

namespace sb {

std::string_view reason_phrase(int status) noexcept {
  switch (status) {
    case 200: return "OK";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 413: return "Payload Too Large";
    case 429: return "Too Many Requests";
    case 500: return "Internal Server Error";
    case 503: return "Service Unavailable";
    default: return "Unknown";
  }
}

void append_head(std::string& out, const ResponseHead& head) {
  char line[64];
  int n = std::snprintf(line, sizeof line, "HTTP/1.1 %d ", head.status);
  out.append(line, static_cast<std::size_t>(n));
  out += reason_phrase(head.status);
  out += "\r\nServer: servebench-sim\r\nContent-Type: ";
  out += head.content_type;
  if (head.chunked) {
    out += "\r\nTransfer-Encoding: chunked\r\nCache-Control: no-cache";
  } else {
    n = std::snprintf(line, sizeof line, "\r\nContent-Length: %zu", head.content_length);
    out.append(line, static_cast<std::size_t>(n));
  }
  out += head.keep_alive ? "\r\nConnection: keep-alive\r\n\r\n" : "\r\nConnection: close\r\n\r\n";
}

std::size_t begin_chunk(std::string& out) {
  const std::size_t pos = out.size();
  out += "00000000\r\n";
  return pos;
}

void end_chunk(std::string& out, std::size_t begin_pos) {
  static constexpr char hex[] = "0123456789abcdef";
  std::size_t len = out.size() - begin_pos - 10;
  for (int i = 7; i >= 0; --i) {
    out[begin_pos + static_cast<std::size_t>(i)] = hex[len & 0xF];
    len >>= 4;
  }
  out += "\r\n";
}

void append_last_chunk(std::string& out) { out += "0\r\n\r\n"; }

void append_json_escaped(std::string& out, std::string_view s) {
  // One escaper for the whole project (protocol/json_text); this name only drops its quotes.
  const std::size_t open_quote = out.size();
  append_json_string(out, s);
  out.pop_back();
  out.erase(open_quote, 1);
}

}  // namespace sb
