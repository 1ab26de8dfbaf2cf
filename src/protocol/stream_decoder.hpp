#pragma once
// Decodes one streamed chunk (an SSE data payload) or a non-streaming response body of the
// completions / chat APIs with simdjson On-Demand (sans-I/O; one decoder per worker thread).
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "protocol/api.hpp"
#include "protocol/chunk_shape.hpp"

namespace sb {

// A request's own timing as the server reports it: llama.cpp's `timings` object (final chunk,
// docs/engines.md). Negative = the field was not sent. prompt_ms runs from slot start to the first
// token, so the server's queueing is not in it.
struct ChunkTimings {
  double prompt_ms = -1, predicted_ms = -1;
  int cache_n = -1, prompt_n = -1, predicted_n = -1;
};

struct ChunkInfo {
  enum class Kind { token, usage_only, done, error, other } kind = Kind::other;
  // token: the chunk has a non-empty `choices` array (vLLM counts any such chunk as a token event)
  std::string_view text;        // choices[0].text or choices[0].delta.content (may be empty); valid until next decode
  bool has_usage = false;       // usage object present (in its own chunk or with the last choices chunk)
  int prompt_tokens = -1;
  int completion_tokens = -1;
  bool finished = false;        // finish_reason not null
  std::string_view finish_reason;  // its text when a string ("stop", "length"); valid until next decode
  std::string_view error_message;  // kind == error: {"error": {...}} object's message
  bool has_timings = false;     // a `timings` object was present (llama.cpp)
  ChunkTimings timings;
  int cached_tokens = -1;       // usage.prompt_tokens_details.cached_tokens (vLLM, SGLang, OpenAI)
  // Where `text` came from: its raw JSON token (quotes, then any spaces) in the decoder's copy of
  // the payload; empty when the text was null or absent. Lets decode_chunk learn a ChunkShape.
  std::string_view text_json;
};

class StreamDecoder {
 public:
  explicit StreamDecoder(Api api);
  ~StreamDecoder();
  // payload is an SSE data field. "[DONE]" -> Kind::done; empty (or blank) -> Kind::other, nothing
  // to count. Returns false on malformed JSON: invalid syntax, control bytes, text after the object,
  // token counts that are not non-negative integers within int's range.
  bool decode_chunk(std::string_view payload, ChunkInfo& out);
  // The same, and the same answer, skipping the JSON parse when `payload` has `shape` (a plain
  // token chunk like the connection's previous one, but for its text); a plain token chunk decoded
  // in full becomes the shape. A matched chunk's `text` views `payload` itself, not the decoder's
  // copy: the payload must outlive `out` (the client reads it within the SSE event's callback).
  bool decode_chunk(std::string_view payload, ChunkInfo& out, ChunkShape& shape);
  // The first step of that: true when `payload` has `shape`, and then decode_chunk's whole answer
  // is a token event whose text is `text` (a view into payload), every other field as defaulted.
  // Lets the client count such an event without filling a ChunkInfo; false: call decode_chunk.
  static bool match_shape(std::string_view payload, ChunkShape& shape, std::string_view& text);
  // Whole non-streaming body (stream=false): text, usage. Returns false on malformed JSON.
  bool decode_body(std::string_view body, ChunkInfo& out);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace sb
