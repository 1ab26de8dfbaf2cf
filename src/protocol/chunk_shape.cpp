#include "protocol/chunk_shape.hpp"

#include <simdjson.h>

#include <array>

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

void ChunkShape::learn(std::string_view payload, std::size_t text_at, std::size_t text_size) {
  if (payload.size() > kMaxBytes) return;
  prefix_.assign(payload.data(), text_at);
  suffix_.assign(payload.data() + text_at + text_size, payload.size() - text_at - text_size);
  known_ = true;
}

}  // namespace sb
