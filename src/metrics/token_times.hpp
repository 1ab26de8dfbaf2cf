#pragma once
// The arrival times of a stream's token events in 4 bytes each instead of 8 (issue 13: constant
// memory per request; a 1,000,000-request soak must stay far under 1 GiB). Stored as offsets from
// the first time in units of 2^shift ns: shift 0, exact to the nanosecond, while a stream spans
// under 4.29 s; each doubling of the span beyond that adds one bit of rounding (a 70 s stream is
// exact to 16 ns, an hour to 1 µs), far below any latency the run reports (to 10 ns in the JSONL).
// Reads like the std::vector<Nanos> it replaces: size, [i], front, back, iteration by value.
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <vector>

#include "core/clock.hpp"

namespace sb {

class TokenTimes {
 public:
  class const_iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = Nanos;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = Nanos;

    const_iterator() = default;
    const_iterator(const TokenTimes* t, std::size_t i) : t_(t), i_(i) {}
    Nanos operator*() const { return (*t_)[i_]; }
    const_iterator& operator++() {
      ++i_;
      return *this;
    }
    const_iterator operator++(int) {
      const_iterator old = *this;
      ++i_;
      return old;
    }
    bool operator==(const const_iterator& o) const { return i_ == o.i_; }

   private:
    const TokenTimes* t_ = nullptr;
    std::size_t i_ = 0;
  };
  using value_type = Nanos;

  TokenTimes() = default;
  TokenTimes(std::initializer_list<Nanos> times);
  TokenTimes& operator=(std::initializer_list<Nanos> times);

  void push_back(Nanos t) {
    const Nanos d = t - base_;
    // The hot path (a token event): one subtraction, one comparison, one store.
    if (!off_.empty() && d >= 0 && (d >> shift_) <= static_cast<Nanos>(UINT32_MAX)) {
      off_.push_back(static_cast<std::uint32_t>(d >> shift_));
      return;
    }
    push_back_slow(t);
  }
  void assign(std::size_t n, Nanos t);
  void reserve(std::size_t n) { off_.reserve(n); }
  void shrink_to_fit() { off_.shrink_to_fit(); }
  void clear() noexcept {
    off_.clear();
    base_ = 0;
    shift_ = 0;
  }

  std::size_t size() const noexcept { return off_.size(); }
  bool empty() const noexcept { return off_.empty(); }
  Nanos operator[](std::size_t i) const noexcept { return base_ + (static_cast<Nanos>(off_[i]) << shift_); }
  Nanos front() const noexcept { return (*this)[0]; }
  Nanos back() const noexcept { return (*this)[off_.size() - 1]; }
  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, off_.size()}; }

  std::vector<Nanos> to_vector() const;
  // Every time t becomes t * factor (a run in a simulator's modelled time: pipeline/modelled_time).
  void scale(double factor);
  // Every time t becomes t + by, exactly (a shard's records moved onto the merged run's clock).
  void shift(Nanos by) noexcept { base_ += by; }
  // Bytes held on the heap (the soak benchmark's accounting).
  std::size_t heap_bytes() const noexcept { return off_.capacity() * sizeof(std::uint32_t); }
  int resolution_shift() const noexcept { return shift_; }

  friend bool operator==(const TokenTimes& a, const TokenTimes& b);
  friend bool operator==(const TokenTimes& a, const std::vector<Nanos>& b);

 private:
  void push_back_slow(Nanos t);
  void encode(const std::vector<Nanos>& times);  // chooses base and shift to fit them all

  Nanos base_ = 0;
  std::vector<std::uint32_t> off_;
  std::uint8_t shift_ = 0;
};

}  // namespace sb
