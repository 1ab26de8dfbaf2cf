#include "protocol/sse_parser.hpp"

#include <cstring>

namespace sb {

void SseParser::reset() {
  buf_.clear();
  pos_ = scan_ = 0;
  pending_cr_ = false;
  end_event();
}

bool SseParser::next_line(std::string_view& line) {
  if (pending_cr_ && pos_ < buf_.size()) {
    pending_cr_ = false;
    if (buf_[pos_] == '\n') {
      ++pos_;
      if (scan_ < pos_) scan_ = pos_;
    }
  }
  const char* base = buf_.data();
  std::size_t i = scan_ < pos_ ? pos_ : scan_;
  const std::size_t n = buf_.size();
  while (i < n && base[i] != '\n' && base[i] != '\r') ++i;
  if (i == n) {
    scan_ = n;
    return false;
  }
  line = std::string_view(base + pos_, i - pos_);
  // A '\r' at the very end may be the first half of "\r\n": remember to swallow the '\n'.
  if (base[i] == '\r') {
    if (i + 1 < n) {
      if (base[i + 1] == '\n') ++i;
    } else {
      pending_cr_ = true;
    }
  }
  pos_ = scan_ = i + 1;
  return true;
}

bool SseParser::take_line(std::string_view line, Event& ev) {
  if (line.empty()) {
    if (!has_data_) {
      event_.clear();
      return false;
    }
    ev.data = data_in_view_ ? data_view_ : std::string_view(data_);
    ev.event = event_;
    return true;
  }
  if (line.front() == ':') return false;  // comment / keep-alive
  std::string_view field = line, value;
  if (auto colon = line.find(':'); colon != std::string_view::npos) {
    field = line.substr(0, colon);
    value = line.substr(colon + 1);
    if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  }
  if (field == "data") {
    if (!has_data_) {
      data_view_ = value;
      data_in_view_ = true;
      has_data_ = true;
    } else {
      if (data_in_view_) {
        data_.assign(data_view_.data(), data_view_.size());
        data_in_view_ = false;
      }
      data_.push_back('\n');
      data_.append(value.data(), value.size());
    }
  } else if (field == "event") {
    event_.assign(value.data(), value.size());
  }
  // id: and retry: do not matter to a benchmark client; unknown fields are ignored per the spec.
  return false;
}

void SseParser::end_event() {
  data_.clear();
  event_.clear();
  data_view_ = {};
  data_in_view_ = false;
  has_data_ = false;
}

void SseParser::end_feed() {
  if (data_in_view_) {
    data_.assign(data_view_.data(), data_view_.size());
    data_view_ = {};
    data_in_view_ = false;
  }
  if (pos_ == 0) return;
  // Move the unfinished line to the front; capacity is kept, so steady state does not allocate.
  const std::size_t rest = buf_.size() - pos_;
  if (rest > 0) std::memmove(buf_.data(), buf_.data() + pos_, rest);
  buf_.resize(rest);
  scan_ -= pos_;
  pos_ = 0;
}

}  // namespace sb
