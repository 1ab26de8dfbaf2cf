#pragma once
// One generation's response as a state machine over a caller-owned output buffer (sans-I/O): the
// front end feeds it the backend's TokenEvents and writes whatever it appended. Streaming
// responses get the chunked head, one SSE event per TokenEvent (all events of one wake-up share
// one HTTP chunk), the usage chunk or usage in the last choices chunk, "data: [DONE]" and the last
// chunk; non-streaming ones accumulate the text and get one body at the end. Injected drop and
// malformed faults are applied here, right after FaultPlan::after_tokens tokens.
#include <cstddef>
#include <cstdint>
#include <string>

#include "protocol/api.hpp"
#include "sim/backend.hpp"
#include "sim/faults.hpp"
#include "sim/sse_writer.hpp"

namespace sb::sim {

struct StreamSetup {
  Api api = Api::completions;
  bool stream = true;
  bool include_usage = false;         // stream_options.include_usage
  bool usage_in_last_chunk = false;   // --usage-in-last-chunk (always, instead of the usage chunk)
  std::string id;                     // response id
  std::string model;
  std::int64_t created_s = 0;
  int prompt_tokens = 0;
  int max_tokens = 16;
  std::uint64_t seed = 0;             // filler text
  FaultPlan fault;
  // --dialect llama.cpp: llama.cpp's `timings` in the last chunk (the usage chunk when one is sent)
  // and in a non-streaming body, exact from the backend's times.
  bool timings = false;
};

class StreamState {
 public:
  explicit StreamState(StreamSetup s);

  void begin(std::string& out, bool keep_alive);          // streaming: response head
  void on_tokens(std::string& out, const TokenEvent& ev);  // no-op after done() or drop_now()
  // Before each write: closes the open HTTP chunk, and ends the body once done().
  void seal(std::string& out);
  // Non-streaming: the whole response (head + body); call once done().
  void append_full_response(std::string& out, bool keep_alive) const;

  bool done() const noexcept { return done_; }
  bool drop_now() const noexcept { return drop_now_; }
  int emitted() const noexcept { return emitted_; }
  bool streaming() const noexcept { return s_.stream; }

 private:
  StreamSetup s_;
  SseWriter writer_;
  std::string text_;       // non-streaming: generated text; streaming: scratch for multi-token events
  std::size_t chunk_at_ = std::string::npos;
  int emitted_ = 0;
  bool done_ = false;
  bool drop_now_ = false;
  bool malformed_sent_ = false;
  bool ended_ = false;     // last chunk written
  Nanos started_ns_ = -1, first_at_ns_ = -1, last_at_ns_ = -1;  // backend times (TokenEvent)

  LlamaTimings timings() const;
};

}  // namespace sb::sim
