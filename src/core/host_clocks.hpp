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

  // The clocks are read back to back, well under a microsecond apart, so their differences are
  // each clock's offset. A thread preempted between two reads (a busy machine: another process's
  // time slice) would put a trace that far off, so each attempt is bracketed by two CLOCK_MONOTONIC
  // reads and the tightest of a few attempts is kept. (The 1.5 ms once blamed on preemption in CI
  // was that VM stepping its wall clock between two processes' reads: sim/engine_backend.cpp.)
  static constexpr int kAttempts = 5;
  static constexpr std::int64_t kTightNs = 20'000;  // an attempt this tight ends the search

  static HostClocks now() noexcept {
    HostClocks best;
    std::int64_t best_span = -1;
    for (int i = 0; i < kAttempts; ++i) {
      HostClocks c;
      const std::int64_t before = read(CLOCK_MONOTONIC);
      c.steady_ns = now_ns();
      c.realtime_ns = read(CLOCK_REALTIME);
      c.monotonic_ns = read(CLOCK_MONOTONIC);
      c.monotonic_raw_ns = read(CLOCK_MONOTONIC_RAW);
      c.boottime_ns = read(CLOCK_BOOTTIME);
      const std::int64_t span = read(CLOCK_MONOTONIC) - before;
      if (best_span < 0 || span < best_span) best = c, best_span = span;
      if (best_span <= kTightNs) break;
    }
    return best;
  }

  // An offset's error is at most half its bracket: stop early only at a bracket of 2 µs (three reads
  // take well under one), else keep the tightest of kAttempts. Stopping at kTightNs allowed 10 µs of
  // error on a loaded machine (HostClocks.AClockAgainstItselfIsZeroToTheMicrosecond saw 4.8 µs).
  static constexpr std::int64_t kTightOffsetNs = 2'000;
  // CLOCK a minus CLOCK b, each read once, from the tightest of a few bracketed attempts.
  static std::int64_t offset_ns(clockid_t a, clockid_t b) noexcept {
    std::int64_t best = 0, best_span = -1;
    for (int i = 0; i < kAttempts; ++i) {
      const std::int64_t b1 = read(b), va = read(a), b2 = read(b);
      const std::int64_t span = b2 - b1;
      if (best_span < 0 || span < best_span) best = va - (b1 + span / 2), best_span = span;
      if (best_span <= kTightOffsetNs) break;
    }
    return best;
  }
};

}  // namespace sb
