#include "metrics/token_times.hpp"

#include <algorithm>
#include <cmath>

namespace sb {

TokenTimes::TokenTimes(std::initializer_list<Nanos> times) { encode(std::vector<Nanos>(times)); }

TokenTimes& TokenTimes::operator=(std::initializer_list<Nanos> times) {
  encode(std::vector<Nanos>(times));
  return *this;
}

void TokenTimes::assign(std::size_t n, Nanos t) { encode(std::vector<Nanos>(n, t)); }

std::vector<Nanos> TokenTimes::to_vector() const { return {begin(), end()}; }

void TokenTimes::push_back_slow(Nanos t) {
  if (off_.empty()) {  // the first time is the base: what encode({t}) makes, without a vector
    base_ = t;
    shift_ = 0;
    off_.push_back(0);
    return;
  }
  // One before the first (never from a clock, but a record may be built by hand), or a span past
  // what the shift holds: re-encode everything with a base and shift that fit.
  std::vector<Nanos> all = to_vector();
  all.push_back(t);
  const std::size_t keep = off_.capacity();
  encode(all);
  off_.reserve(keep);
}

void TokenTimes::encode(const std::vector<Nanos>& times) {
  off_.clear();
  base_ = 0;
  shift_ = 0;
  if (times.empty()) return;
  const auto [lo, hi] = std::minmax_element(times.begin(), times.end());
  base_ = *lo;
  const std::uint64_t span = static_cast<std::uint64_t>(*hi) - static_cast<std::uint64_t>(*lo);
  while ((span >> shift_) > UINT32_MAX) ++shift_;
  off_.reserve(times.size());
  for (const Nanos t : times) off_.push_back(static_cast<std::uint32_t>(static_cast<std::uint64_t>(t - base_) >> shift_));
}

void TokenTimes::scale(double factor) {
  std::vector<Nanos> all = to_vector();
  for (Nanos& t : all) t = static_cast<Nanos>(std::llround(static_cast<double>(t) * factor));
  const std::size_t keep = off_.capacity();
  encode(all);
  off_.reserve(keep);
}

bool operator==(const TokenTimes& a, const TokenTimes& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i] != b[i]) return false;
  return true;
}

bool operator==(const TokenTimes& a, const std::vector<Nanos>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i] != b[i]) return false;
  return true;
}

}  // namespace sb
