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
  bool feed(std::string_view bytes, Fn&& on_event) {
    return feed(bytes, on_event, [](std::string_view) { return std::size_t{0}; });
  }
  // As above, and wherever a new event may start (nothing of one in progress) `take_whole` is
  // offered the unread bytes first: std::size_t(std::string_view). It may take whole events from
  // their start, doing with each what `on_event` would have done, and return their length (whole
  // events only, each blank line included); 0 leaves the bytes to the parser. The client's
  // ResponseSink takes its connection's usual chunks there (ChunkShape::match_events).
  template <class Fn, class Whole>
  bool feed(std::string_view bytes, Fn&& on_event, Whole&& take_whole);

  // The unterminated tail at end of stream, treated as a final event if it holds data (vLLM does this).
  template <class Fn>
  void finish(Fn&& on_event);

  void reset();
  std::size_t max_event_bytes = 64 * 1024 * 1024;

 private:
  std::string buf_;          // received bytes not yet consumed as complete lines (between feeds)
  // What feed() reads lines from: buf_ with the new bytes appended or, when nothing was buffered
  // (a read that ended where an event did, the usual case), the new bytes where they lie: only an
  // unfinished tail is copied then (the copy of every byte was a tenth of the SSE parser's work).
  std::string_view src_;
  bool src_is_input_ = false;
  std::size_t pos_ = 0;      // start of the first unconsumed line in src_
  std::size_t scan_ = 0;     // how far src_ has been searched for a line end
  bool pending_cr_ = false;  // last line ended in '\r': a following '\n' belongs to it
  // The event in progress. A single data line is kept as a view into src_ (no copy, the common
  // case); a second data line, or the end of a feed() with the event unfinished, moves it to data_.
  std::string data_;
  std::string event_;
  std::string_view data_view_;
  bool data_in_view_ = false;
  bool has_data_ = false;

  // At a line start with nothing of an event in progress (no data, no event: field, no CR whose
  // LF may follow, the line not searched yet).
  bool at_event_start() const noexcept { return !has_data_ && !pending_cr_ && scan_ <= pos_ && event_.empty(); }
  // The usual event whole: "data:" + payload + a blank line, all LF or all CRLF, at an event start.
  // Anything else (or an unfinished event) is left to next_line.
  bool next_plain_event(Event& ev);
  bool next_line(std::string_view& line);      // next complete line of src_, without its terminator
  bool take_line(std::string_view line, Event& ev);  // true when `line` completes an event
  void end_event();                            // clears the dispatched event's fields
  void end_feed();                             // keeps the unfinished event valid, leaves the rest in buf_
  std::size_t pending_bytes() const noexcept { return buf_.size() - pos_ + data_.size(); }
};

template <class Fn, class Whole>
bool SseParser::feed(std::string_view bytes, Fn&& on_event, Whole&& take_whole) {
  src_is_input_ = buf_.empty();
  if (!src_is_input_) buf_.append(bytes.data(), bytes.size());
  src_ = src_is_input_ ? bytes : std::string_view(buf_);
  std::string_view line;
  Event ev;
  for (;;) {
    if (at_event_start()) {
      if (const std::size_t n = take_whole(src_.substr(pos_)); n > 0) {
        pos_ = scan_ = pos_ + n;
        continue;
      }
      if (next_plain_event(ev)) {
        on_event(static_cast<const Event&>(ev));
        continue;
      }
    }
    // All taken (the usual end of a read, or of a chunk of a chunked body): next_line would only
    // search the empty rest for line ends.
    if (pos_ == src_.size() || !next_line(line)) break;
    if (take_line(line, ev)) {
      on_event(static_cast<const Event&>(ev));
      end_event();
    }
  }
  end_feed();
  return pending_bytes() <= max_event_bytes;
}

template <class Fn>
void SseParser::finish(Fn&& on_event) {
  Event ev;
  if (pos_ < buf_.size()) {
    std::string_view tail(buf_.data() + pos_, buf_.size() - pos_);
    pos_ = buf_.size();
    take_line(tail, ev);
  }
  // A blank line dispatches whatever the tail left in progress.
  if (take_line(std::string_view(), ev)) on_event(static_cast<const Event&>(ev));
  reset();
}

}  // namespace sb
