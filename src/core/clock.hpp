#pragma once
// Clocks used for every measurement: steady_clock nanoseconds for intervals, plus one
// (steady, wall) anchor per run so stages can be placed on wall-clock time (profiler alignment).
#include <chrono>
#include <cstdint>

namespace sb {

using Nanos = std::int64_t;  // steady-clock nanoseconds

inline Nanos now_ns() noexcept {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

inline std::int64_t unix_now_ns() noexcept {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Taken once per run: converts steady timestamps to Unix time (steady + (unix - steady)).
struct ClockAnchor {
  Nanos steady_ns = 0;
  std::int64_t unix_ns = 0;

  static ClockAnchor now() noexcept { return {now_ns(), unix_now_ns()}; }
  std::int64_t to_unix_ns(Nanos steady) const noexcept { return unix_ns + (steady - steady_ns); }
};

constexpr double ns_to_ms(Nanos ns) noexcept { return static_cast<double>(ns) / 1e6; }
constexpr double ns_to_s(Nanos ns) noexcept { return static_cast<double>(ns) / 1e9; }

}  // namespace sb
