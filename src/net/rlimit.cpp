#include "net/rlimit.hpp"

#include <sys/resource.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "core/error.hpp"

namespace sb {

std::uint64_t fds_needed_for(std::uint64_t connections) {
  // stdio, result files, the resolver, eventfds of the worker io_contexts: 64 is ample.
  return connections + 64;
}

std::uint64_t raise_nofile_limit(std::uint64_t needed_fds) {
  rlimit lim{};
  if (getrlimit(RLIMIT_NOFILE, &lim) != 0) {
    throw UserError(std::string("cannot read the open-file limit (RLIMIT_NOFILE): ") +
                    std::strerror(errno));
  }
  if (lim.rlim_cur == RLIM_INFINITY || lim.rlim_cur >= needed_fds) return lim.rlim_cur;
  if (lim.rlim_max != RLIM_INFINITY && lim.rlim_max < needed_fds) {
    throw UserError("this run needs " + std::to_string(needed_fds) +
                    " open files (one socket per connection) but the hard limit RLIMIT_NOFILE is " +
                    std::to_string(lim.rlim_max) +
                    ": lower the concurrency, or raise the limit (ulimit -Hn, "
                    "/etc/security/limits.conf, or LimitNOFILE= for a systemd unit)");
  }
  lim.rlim_cur = needed_fds;
  if (setrlimit(RLIMIT_NOFILE, &lim) != 0) {
    throw UserError("cannot raise the open-file limit to " + std::to_string(needed_fds) + ": " +
                    std::strerror(errno));
  }
  return lim.rlim_cur;
}

}  // namespace sb
