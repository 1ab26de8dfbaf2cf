#pragma once
// Bytes read from a connection and not parsed yet. Grows to one read step once, then is reused:
// no allocation per request or per read.
#include <boost/asio/buffer.hpp>
#include <cstddef>
#include <cstring>
#include <vector>

namespace sb {

class ReadBuffer {
 public:
  // Room for `n` more bytes after the unparsed ones.
  boost::asio::mutable_buffer prepare(std::size_t n) {
    if (begin_ == end_) begin_ = end_ = 0;
    if (mem_.size() - end_ < n) {
      if (begin_ > 0) {
        std::memmove(mem_.data(), mem_.data() + begin_, end_ - begin_);
        end_ -= begin_;
        begin_ = 0;
      }
      if (mem_.size() - end_ < n) mem_.resize(end_ + n);
    }
    return {mem_.data() + end_, n};
  }
  void commit(std::size_t n) noexcept { end_ += n; }
  boost::asio::const_buffer data() const noexcept { return {mem_.data() + begin_, end_ - begin_}; }
  std::size_t size() const noexcept { return end_ - begin_; }
  void consume(std::size_t n) noexcept { begin_ = n >= size() ? end_ : begin_ + n; }
  void clear() noexcept { begin_ = end_ = 0; }

 private:
  std::vector<char> mem_;
  std::size_t begin_ = 0, end_ = 0;
};

}  // namespace sb
