#include "protocol/chunk_shape.hpp"

#include <simdjson.h>

#include <array>
#include <cstring>

namespace sb {

namespace {

// Per byte of a JSON string body: 0 where it does not stand for itself ('"' ends the string, '\\'
// starts an escape, bytes below 0x20 are not allowed unescaped), 1 for other ASCII, 2 above 0x7F.
constexpr std::array<std::uint8_t, 256> kTextByteClass = [] {
  std::array<std::uint8_t, 256> c{};
  for (int b = 0x20; b < 0x80; ++b) c[static_cast<std::size_t>(b)] = 1;
  for (int b = 0x80; b < 0x100; ++b) c[static_cast<std::size_t>(b)] = 2;
  c['"'] = c['\\'] = 0;
  return c;
}();

// A JSON string body that unescapes to itself. ASCII text (most tokens) needs no UTF-8 check: the
// library call costs more than the loop here. One table load per byte where three comparisons were.
bool is_plain_json_text(std::string_view text) {
  std::uint8_t seen = 0;
  for (const char ch : text) {
    const std::uint8_t c = kTextByteClass[static_cast<unsigned char>(ch)];
    if (c == 0) return false;
    seen |= c;
  }
  return (seen & 2) == 0 || simdjson::validate_utf8(text.data(), text.size());
}

bool has_line_end(std::string_view s) { return s.find_first_of("\r\n") != std::string_view::npos; }

}  // namespace

bool ChunkShape::match(std::string_view payload, std::string_view& text) {
  if (!known_ || payload.size() < prefix_.size() + suffix_.size()) return false;
  if (payload.substr(0, prefix_.size()) != prefix_) return false;
  if (payload.substr(payload.size() - suffix_.size()) != suffix_) return false;
  const std::string_view middle = payload.substr(prefix_.size(), payload.size() - prefix_.size() - suffix_.size());
  if (!is_plain_json_text(middle)) return false;
  text = middle;
  ++matched_;
  return true;
}

std::size_t ChunkShape::match_event(std::string_view bytes, std::string_view& text) {
  constexpr std::string_view kData = "data:";
  if (!framable_ || !bytes.starts_with(kData)) return 0;
  std::size_t at = kData.size();
  if (at < bytes.size() && bytes[at] == ' ') ++at;
  // The payload is trimmed as the decoder trims it, so the space is the only one the SSE parser
  // strips: prefix_ starts and suffix_ ends with a byte that is not white space.
  const std::size_t n = bytes.size();
  if (n - at < prefix_.size() + suffix_.size() + 2) return 0;
  const char* b = bytes.data();
  if (std::memcmp(b + at, prefix_.data(), prefix_.size()) != 0) return 0;
  const std::size_t text_at = at + prefix_.size();
  // The text ends at its first byte that does not stand for itself; the suffix, its line end and a
  // blank line must follow there. A text holding such a byte (a quote, an escape, a line end) is
  // left to the parsers, as match() leaves it.
  const std::size_t last = n - suffix_.size() - 2;  // the latest the suffix may start
  std::size_t end = text_at;
  std::uint8_t seen = 0;
  for (; end <= last; ++end) {
    const std::uint8_t c = kTextByteClass[static_cast<unsigned char>(b[end])];
    if (c == 0) break;
    seen |= c;
  }
  if (end > last || std::memcmp(b + end, suffix_.data(), suffix_.size()) != 0) return 0;
  std::size_t next = end + suffix_.size();
  if (b[next] == '\n' && b[next + 1] == '\n') {
    next += 2;
  } else if (next + 4 <= n && std::memcmp(b + next, "\r\n\r\n", 4) == 0) {
    next += 4;
  } else {
    return 0;
  }
  if ((seen & 2) != 0 && !simdjson::validate_utf8(b + text_at, end - text_at)) return 0;
  text = std::string_view(b + text_at, end - text_at);
  ++matched_;
  return next;
}

void ChunkShape::learn(std::string_view payload, std::size_t text_at, std::size_t text_size) {
  if (payload.size() > kMaxBytes) return;
  prefix_.assign(payload.data(), text_at);
  suffix_.assign(payload.data() + text_at + text_size, payload.size() - text_at - text_size);
  known_ = true;
  framable_ = !has_line_end(prefix_) && !has_line_end(suffix_);
}

}  // namespace sb
