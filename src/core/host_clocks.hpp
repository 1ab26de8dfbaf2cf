#pragma once
// The host's clocks read together once at the start of a run (sweep document
// `environment.clocks_at_start`): the clocks profilers stamp with (rocprof and rocprofv3:
// CLOCK_BOOTTIME; CUPTI and nsys on Linux: CLOCK_MONOTONIC or CLOCK_MONOTONIC_RAW), so a trace
// recorded on the same host maps onto wall-clock time with no offset given by hand.
#include <cstdint>
#include <ctime>

#include "core/clock.hpp"

namespace sb {

struct HostClocks {
  Nanos steady_ns = 0;  // std::chrono::steady_clock (CLOCK_MONOTONIC on Linux)
  std::int64_t realtime_ns = 0, monotonic_ns = 0, monotonic_raw_ns = 0, boottime_ns = 0;

  static std::int64_t read(clockid_t id) noexcept {
    timespec ts{};
    if (::clock_gettime(id, &ts) != 0) return 0;
    return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
  }
  // Read back to back (well under a microsecond apart): the differences are each clock's offset.
  static HostClocks now() noexcept {
    HostClocks c;
    c.steady_ns = now_ns();
    c.realtime_ns = read(CLOCK_REALTIME);
    c.monotonic_ns = read(CLOCK_MONOTONIC);
    c.monotonic_raw_ns = read(CLOCK_MONOTONIC_RAW);
    c.boottime_ns = read(CLOCK_BOOTTIME);
    return c;
  }
};

}  // namespace sb
