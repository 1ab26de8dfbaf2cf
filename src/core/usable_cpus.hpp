#pragma once
// The CPUs this process may run on: its affinity mask (`taskset`, a container's cpuset), not the
// machine's core count. A client pinned to 2 of 16 cores that started 16 worker threads would
// time-slice them on 2 cores, and its sends and stamps would wait for the slices.
#include <sched.h>

#include <algorithm>
#include <thread>

namespace sb {

inline int usable_cpus() noexcept {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof set, &set) == 0) {
    const int n = CPU_COUNT(&set);
    if (n > 0) return n;
  }
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

}  // namespace sb
