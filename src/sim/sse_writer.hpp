#pragma once
// Formats the simulator's responses in the OpenAI wire format (sans-I/O): streamed SSE chunks of
// the completions and chat APIs, the usage chunk, "data: [DONE]", and non-streaming bodies.
// Everything that is constant for a request (id, model, created) is formatted once in the
// constructor; per token only the filler word is copied into the caller's reused buffer.
//
// Example:
//   SseWriter w({Api::completions, "cmpl-1", "sim-model", 1700000000, true, false});
//   w.append_token(out, filler_word(seed, 0), {.first = true});
//   w.append_token(out, filler_word(seed, 1), {.finish_reason = "length", .usage = &u});
//   w.append_done(out);
#include <cstdint>
#include <string>
#include <string_view>

#include "protocol/api.hpp"

namespace sb::sim {

struct Usage {
  int prompt_tokens = 0;
  int completion_tokens = 0;
};

// llama.cpp's `timings` object (--dialect llama.cpp): counts and times as its server reports them;
// the rates and per-token means are derived from these when written.
struct LlamaTimings {
  int cache_n = 0, prompt_n = 0, predicted_n = 0;
  double prompt_ms = 0, predicted_ms = 0;
};

struct StreamFormat {
  Api api = Api::completions;
  std::string id;           // "cmpl-..." / "chatcmpl-..."
  std::string model;
  std::int64_t created_s = 0;
};

struct TokenChunk {
  bool first = false;                      // chat: the first delta also carries "role"
  const char* finish_reason = nullptr;     // "length" / "stop" on the last token, else null
  const Usage* usage = nullptr;            // usage in this choices chunk (--usage-in-last-chunk)
  const LlamaTimings* timings = nullptr;   // `timings` in this chunk (--dialect llama.cpp, last chunk)
};

class SseWriter {
 public:
  explicit SseWriter(const StreamFormat& f);

  // One "data: {...}\n\n" event carrying `text` (already JSON-safe: filler words need no escaping).
  void append_token(std::string& out, std::string_view text, const TokenChunk& c) const;
  // The separate usage chunk of stream_options.include_usage: "choices": [].
  void append_usage_chunk(std::string& out, const Usage& u, const LlamaTimings* timings = nullptr) const;
  static void append_done(std::string& out);
  // One event whose payload is not valid JSON (fault injection).
  void append_malformed(std::string& out) const;

  // Whole non-streaming response body.
  std::string full_body(std::string_view text, const char* finish_reason, const Usage& u,
                        const LlamaTimings* timings = nullptr) const;

 private:
  StreamFormat f_;
  std::string head_;        // 'data: {"id":...,"choices":[{"index":0,' (up to the text field)
  std::string text_key_;    // '"text":"' or '"delta":{"content":"'
  std::string common_;      // '{"id":"..","object":"..","created":N,"model":".."'
};

// Deterministic filler token text: a word (with its leading space) from a fixed list of plain
// ASCII words, chosen by (seed, index). The same request always gets the same text.
std::string_view filler_word(std::uint64_t seed, int index) noexcept;

void append_usage_json(std::string& out, const Usage& u);  // '"usage":{...}'
void append_timings_json(std::string& out, const LlamaTimings& t);  // '"timings":{...}'

}  // namespace sb::sim
