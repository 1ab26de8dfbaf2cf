#pragma once
// The bytes around the text of a plain token chunk: one whose only news is choices[0]'s text (no
// finish_reason, usage, timings or error), learnt from a chunk StreamDecoder decoded in full.
// Servers repeat one such shape through a request (vLLM: the same id, created, model, index and
// null logprobs and finish_reason in every chunk but the last), so the next chunk differs only in
// its text. A payload that is the learnt prefix, a text and the learnt suffix, where the text is a
// JSON string body that unescapes to itself (no quote, backslash or control byte, valid UTF-8), is
// valid JSON exactly as the learnt one was and decodes the same but for its text: decoding it again
// would find nothing new, and costs most of the client's instructions per event. One per
// connection, so interleaved streams do not evict each other's shape; no allocation once grown.
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace sb {

class ChunkShape {
 public:
  // True when `payload` (trimmed, as decoded) has the learnt shape: `text` is its text, a view
  // into `payload`.
  bool match(std::string_view payload, std::string_view& text);
  // `bytes` start where an SSE event may start (SseParser with nothing of an event in progress).
  // When they begin with one whole event "data:", an optional space, a payload of the learnt shape
  // and a blank line (LF LF or CRLF CRLF), returns the event's length and sets `text`, a view into
  // `bytes`; else 0. What SseParser and match() would make of those bytes is exactly that text, so
  // the event is taken in one pass: two memcmp and the text, where the line ends were searched for
  // twice before. Anything else (an unfinished event, other line ends or fields) returns 0.
  std::size_t match_event(std::string_view bytes, std::string_view& text);
  // The events match_event would take one after another from the start of `bytes`, each handed
  // to on_text(std::string_view text) in order; returns the bytes they hold (0: none). One call
  // for a read's run of usual chunks, the learnt bytes' addresses and sizes held in registers.
  template <class Fn>
  std::size_t match_events(std::string_view bytes, Fn&& on_text);
  // `payload` decoded to a plain token chunk whose text is its bytes [text_at, text_at + text_size)
  // as written (no escapes). A payload over kMaxBytes is not learnt: the shape is kept per
  // connection, and 10,000 streams must not hold 10,000 copies of a large chunk.
  void learn(std::string_view payload, std::size_t text_at, std::size_t text_size);
  static constexpr std::size_t kMaxBytes = 4096;
  std::uint64_t matched() const noexcept { return matched_; }

 private:
  std::string prefix_;  // up to and including the text's opening quote
  std::string suffix_;  // from the text's closing quote to the end
  bool known_ = false;
  bool framable_ = false;  // no CR or LF in prefix_ and suffix_: an event's line ends after suffix_
  std::uint64_t matched_ = 0;
};

namespace chunk_shape_detail {

// Per byte of a JSON string body: 0 where it does not stand for itself ('"' ends the string, '\\'
// starts an escape, bytes below 0x20 are not allowed unescaped), 1 for other ASCII, 2 above 0x7F.
inline constexpr std::array<std::uint8_t, 256> kTextByteClass = [] {
  std::array<std::uint8_t, 256> c{};
  for (int b = 0x20; b < 0x80; ++b) c[static_cast<std::size_t>(b)] = 1;
  for (int b = 0x80; b < 0x100; ++b) c[static_cast<std::size_t>(b)] = 2;
  c['"'] = c['\\'] = 0;
  return c;
}();

bool valid_utf8(const char* text, std::size_t size);

// One event of the shape `prefix` + text + `suffix` at the start of [b, b + n): its length, 0 if
// none; the text is [text_at, text_at + text_size).
inline std::size_t match_one(const char* b, std::size_t n, std::string_view prefix, std::string_view suffix,
                             std::size_t& text_at, std::size_t& text_size) {
  if (n < 5 || std::memcmp(b, "data:", 5) != 0) return 0;
  std::size_t at = 5;
  if (at < n && b[at] == ' ') ++at;
  // The payload is trimmed as the decoder trims it, so the space is the only one the SSE parser
  // strips: prefix starts and suffix ends with a byte that is not white space.
  if (n - at < prefix.size() + suffix.size() + 2 || std::memcmp(b + at, prefix.data(), prefix.size()) != 0) return 0;
  // The text ends at its first byte that does not stand for itself; the suffix, its line end and a
  // blank line must follow there. A text holding such a byte (a quote, an escape, a line end) is
  // left to the parsers, as match() leaves it.
  const std::size_t first = at + prefix.size();
  const std::size_t last = n - suffix.size() - 2;  // the latest the suffix may start
  std::size_t end = first;
  std::uint8_t seen = 0;
  for (; end <= last; ++end) {
    const std::uint8_t c = kTextByteClass[static_cast<unsigned char>(b[end])];
    if (c == 0) break;
    seen |= c;
  }
  if (end > last || std::memcmp(b + end, suffix.data(), suffix.size()) != 0) return 0;
  std::size_t next = end + suffix.size();
  if (b[next] == '\n' && b[next + 1] == '\n') {
    next += 2;
  } else if (next + 4 <= n && std::memcmp(b + next, "\r\n\r\n", 4) == 0) {
    next += 4;
  } else {
    return 0;
  }
  if ((seen & 2) != 0 && !valid_utf8(b + first, end - first)) return 0;
  text_at = first;
  text_size = end - first;
  return next;
}

}  // namespace chunk_shape_detail

template <class Fn>
std::size_t ChunkShape::match_events(std::string_view bytes, Fn&& on_text) {
  if (!framable_) return 0;
  const std::string_view prefix = prefix_, suffix = suffix_;
  const char* b = bytes.data();
  std::size_t taken = 0, text_at = 0, text_size = 0;
  while (const std::size_t n = chunk_shape_detail::match_one(b + taken, bytes.size() - taken, prefix, suffix, text_at,
                                                             text_size)) {
    on_text(std::string_view(b + taken + text_at, text_size));
    ++matched_;
    taken += n;
  }
  return taken;
}

}  // namespace sb
