#pragma once
// Whether this build can be held to the latency and throughput bounds the end-to-end tests set.
//
// Under AddressSanitizer (the asan preset; see SB_UNDER_ASAN below) servebench and its
// simulator run 2-3x slower, and unevenly: in CI's asan pass (stop 20) a real-time sim stage's
// TTFT median came out 17 % above what the same stage measures in the default build, and a
// max-num-seqs 64 engine still grew 30 % from c=64 to c=128, so its knee moved a stage, with the
// e2e tests running one at a time (RUN_SERIAL). That is the instrumented client and server being
// slow, not a bug the bound exists to catch. So the bounds are the default pass's job; under ASan a
// test whose answer is a timing runs everything and checks everything else (exit codes, counts,
// the JSON's shape), so ASan still sees that code, then skips its timing checks with this reason.
// docs/reliability.md ("Timing under ASan") lists the tests and says why.
#include <gtest/gtest.h>

#include <limits>

// GCC defines __SANITIZE_ADDRESS__ under -fsanitize=address; clang (which builds the asan preset)
// says so only through __has_feature.
#if defined(__SANITIZE_ADDRESS__)
#define SB_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SB_UNDER_ASAN 1
#endif
#endif

namespace sb::test_timing {

#ifdef SB_UNDER_ASAN
inline constexpr bool kBoundsHeld = false;
#else
inline constexpr bool kBoundsHeld = true;
#endif

inline constexpr const char* kSkipReason =
    "timing bounds are held by the default build; under ASan the run and its other checks passed "
    "(tests/support/timing_bounds.hpp)";

// An upper bound on a latency, a duration or a ratio of speeds that the default build is held to;
// under ASan none. Lower bounds that scheduling delay cannot break (a fixed 40 ms TTFT is never
// below 39.5 ms) stay as they are: delay only adds.
constexpr double upper_bound(double bound) {
  return kBoundsHeld ? bound : std::numeric_limits<double>::infinity();
}

// How long a thing that must happen "at once" (an exit after a signal, a stop after a fault) may
// take: the default build's limit, 3x under ASan, whose leak check at exit and slower start-up
// take a few hundred ms of their own. These are behaviours, not speeds, so ASan checks them too.
constexpr double prompt_s(double seconds) { return kBoundsHeld ? seconds : 3 * seconds; }

}  // namespace sb::test_timing

// At the point of a test where its timing checks begin: under ASan the test ends there, skipped
// with the reason; elsewhere nothing happens. Checks before it have already been made.
#define SB_TIMING_CHECKS_FOLLOW()                                          \
  do {                                                                     \
    if (!::sb::test_timing::kBoundsHeld) GTEST_SKIP() << ::sb::test_timing::kSkipReason; \
  } while (false)
