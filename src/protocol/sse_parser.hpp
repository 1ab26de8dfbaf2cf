#pragma once
// Incremental Server-Sent Events parser (sans-I/O). Feed it bytes exactly as they arrive; it calls
// back once per complete event with the event's data payload. Accepts "\n\n", "\r\n\r\n" and "\r\r"
// separators, "data:" with or without a space, multi-line data (joined with '\n'), comment lines
// (":..."), and event:/id:/retry: fields. Never allocates per event once its buffer has grown.
#include <cstddef>
#include <string>
#include <string_view>

namespace sb {

class SseParser {
 public:
  struct Event {
    std::string_view data;    // data payload (valid until the callback returns)
    std::string_view event;   // the event: field, empty if none
  };

  // Fn: void(const Event&). Returns false if the buffered partial event exceeded max_event_bytes.
  template <class Fn>
  bool feed(std::string_view bytes, Fn&& on_event);

  // The unterminated tail at end of stream, treated as a final event if it holds data (vLLM does this).
  template <class Fn>
  void finish(Fn&& on_event);

  void reset();
  std::size_t max_event_bytes = 64 * 1024 * 1024;

 private:
  std::string buf_;  // bytes of the event in progress
  std::string data_; // data field being assembled
  std::string event_;
  std::size_t scan_ = 0;  // how far buf_ has been searched for a line end
  bool pending_cr_ = false;
  bool has_data_ = false;
  // Implemented in sse_parser.cpp; feed()/finish() loop over lines and call on_event.
  bool next_line(std::string_view& line);
  bool take_line(std::string_view line, Event& ev);  // true when `line` completes an event
};

}  // namespace sb
