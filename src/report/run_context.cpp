#include "report/run_context.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include <thread>

namespace sb::report {

void fill_environment(RunContext& ctx) {
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) == 0) ctx.hostname = host;
  utsname u{};
  if (uname(&u) == 0) ctx.os = std::string(u.sysname) + " " + u.release;
  ctx.cpu_count = static_cast<int>(std::thread::hardware_concurrency());
}

}  // namespace sb::report
