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
#include <cstddef>
#include <cstdint>
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

}  // namespace sb
