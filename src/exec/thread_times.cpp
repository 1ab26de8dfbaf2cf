#include "exec/thread_times.hpp"

#include <sys/syscall.h>
#include <unistd.h>

#include <cstdio>

namespace sb {

int current_thread_id() noexcept { return static_cast<int>(::syscall(SYS_gettid)); }

ThreadTimes thread_times(int tid) noexcept {
  ThreadTimes t;
  if (tid <= 0) return t;
  char path[64];
  std::snprintf(path, sizeof path, "/proc/self/task/%d/schedstat", tid);
  std::FILE* f = std::fopen(path, "r");
  if (f == nullptr) return t;
  long long cpu = 0, wait = 0;
  t.known = std::fscanf(f, "%lld %lld", &cpu, &wait) == 2;
  std::fclose(f);
  if (t.known) {
    t.cpu_ns = cpu;
    t.wait_ns = wait;
  }
  return t;
}

}  // namespace sb
