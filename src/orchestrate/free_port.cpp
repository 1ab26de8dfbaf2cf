#include "orchestrate/free_port.hpp"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "core/error.hpp"

namespace sb::orchestrate {

std::uint16_t pick_free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    throw UserError(std::string("cannot pick a free port: socket(): ") + std::strerror(errno),
                    ExitCode::internal_error);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  const bool ok = ::bind(fd, reinterpret_cast<sockaddr*>(&addr), len) == 0 &&
                  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0;
  const int saved = errno;
  ::close(fd);
  if (!ok) throw UserError(std::string("cannot pick a free port: ") + std::strerror(saved), ExitCode::internal_error);
  return ntohs(addr.sin_port);
}

}  // namespace sb::orchestrate
