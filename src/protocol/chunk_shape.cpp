#include "protocol/chunk_shape.hpp"

#include <simdjson.h>

namespace sb {

namespace {

using chunk_shape_detail::kTextByteClass;

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

// Learnt once per request (a server's chunk id changes per request): two memchr, not
// find_first_of's per-byte search of the set.
bool has_line_end(std::string_view s) {
  return std::memchr(s.data(), '\n', s.size()) != nullptr || std::memchr(s.data(), '\r', s.size()) != nullptr;
}

}  // namespace

bool chunk_shape_detail::valid_utf8(const char* text, std::size_t size) { return simdjson::validate_utf8(text, size); }

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
  std::size_t text_at = 0, text_size = 0;
  const std::size_t n = framable_ ? chunk_shape_detail::match_one(bytes.data(), bytes.size(), prefix_, suffix_,
                                                                   text_at, text_size)
                                  : 0;
  if (n == 0) return 0;
  text = bytes.substr(text_at, text_size);
  ++matched_;
  return n;
}

void ChunkShape::learn(std::string_view payload, std::size_t text_at, std::size_t text_size) {
  if (payload.size() > kMaxBytes) return;
  prefix_.assign(payload.data(), text_at);
  suffix_.assign(payload.data() + text_at + text_size, payload.size() - text_at - text_size);
  known_ = true;
  framable_ = !has_line_end(prefix_) && !has_line_end(suffix_);
}

}  // namespace sb
