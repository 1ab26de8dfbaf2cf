#pragma once
// Per-thread CPU accounting of the client's own threads, read from the kernel's scheduler
// statistics (/proc/self/task/<tid>/schedstat): time on a CPU, and time runnable but waiting for
// one. The second matters on a loaded machine: a thread that always wants the CPU is saturated
// even when other processes take half of it.
#include "core/clock.hpp"

namespace sb {

struct ThreadTimes {
  Nanos cpu_ns = 0;   // on a CPU
  Nanos wait_ns = 0;  // runnable, waiting for a CPU
  bool known = false; // false: schedstat unreadable (times stay 0)
};

// The calling thread's kernel id.
int current_thread_id() noexcept;

// Times of thread `tid` of this process since it started; cheap (one small /proc read), cold path.
ThreadTimes thread_times(int tid) noexcept;

}  // namespace sb
