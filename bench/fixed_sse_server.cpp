// A server that costs as little per request as a server can (issue 13 item 7): one thread, epoll,
// every POST (any path) answered with one fixed response, the head and body in one send(); any
// other request with an empty 404 (a client's GET /v1/models then finds no models list, as with
// nginx). bench/nginx_sse.sh uses it with SERVER=fixed in place of nginx, which on one core
// of a small VM became the limit before the clients did (wrk made nginx's core 99 % busy).
// It reads only what framing needs (the end of the head, Content-Length) and checks nothing else;
// a benchmark instrument, not a server for anything else. The bench preset builds it too.
//   fixed_sse_server BODY_FILE [PORT]   prints "listening on PORT", serves until SIGTERM or SIGINT,
//                                       then prints "requests N" (the POSTs it answered whole).
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

namespace {

volatile sig_atomic_t g_stop = 0;
void on_signal(int) { g_stop = 1; }

struct Conn {
  std::string in;                   // bytes of requests not answered yet
  const std::string* out = nullptr;  // the response being sent
  std::size_t out_at = 0;           // how much of it went out
  bool sending = false;
};

// The request at the start of `in`: its length (head and body), 0 while incomplete, npos if the
// head has no end within 64 KiB.
std::size_t request_length(std::string_view in) {
  const std::size_t end = in.find("\r\n\r\n");
  if (end == std::string_view::npos) return in.size() > 65536 ? std::string_view::npos : 0;
  std::size_t body = 0;
  const std::string_view head = in.substr(0, end);
  for (std::size_t at = head.find("\r\n"); at != std::string_view::npos; at = head.find("\r\n", at + 2)) {
    constexpr std::string_view kName = "content-length:";
    if (head.size() - at - 2 < kName.size()) break;
    bool same = true;
    for (std::size_t i = 0; i < kName.size() && same; ++i)
      same = std::tolower(static_cast<unsigned char>(head[at + 2 + i])) == kName[i];
    if (same) body = std::strtoull(head.data() + at + 2 + kName.size(), nullptr, 10);
  }
  const std::size_t total = end + 4 + body;
  return in.size() >= total ? total : 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: fixed_sse_server BODY_FILE [PORT]\n");
    return 2;
  }
  std::ifstream file(argv[1], std::ios::binary);
  if (!file) {
    std::fprintf(stderr, "fixed_sse_server: cannot read %s\n", argv[1]);
    return 2;
  }
  const std::string body((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  const std::string response = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: " +
                               std::to_string(body.size()) + "\r\n\r\n" + body;
  const std::string not_found = "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n";
  const int port = argc > 2 ? std::atoi(argv[2]) : 0;

  const int lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  const int one = 1;
  setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  socklen_t len = sizeof addr;
  if (bind(lfd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || listen(lfd, 4096) != 0 ||
      getsockname(lfd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    std::fprintf(stderr, "fixed_sse_server: cannot listen on port %d: %s\n", port, std::strerror(errno));
    return 2;
  }
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGINT, &sa, nullptr);
  signal(SIGPIPE, SIG_IGN);
  std::printf("listening on %d\n", ntohs(addr.sin_port));
  std::fflush(stdout);

  const int ep = epoll_create1(EPOLL_CLOEXEC);
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.fd = lfd;
  epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &ev);
  std::unordered_map<int, Conn> conns;
  long long answered = 0;
  char buf[65536];
  epoll_event events[256];

  const auto close_conn = [&](int fd) {
    epoll_ctl(ep, EPOLL_CTL_DEL, fd, nullptr);
    close(fd);
    conns.erase(fd);
  };
  // Sends what is left of the pending response; true when it all went out.
  const auto send_rest = [&](int fd, Conn& c) {
    while (c.out_at < c.out->size()) {
      const ssize_t n = send(fd, c.out->data() + c.out_at, c.out->size() - c.out_at, MSG_NOSIGNAL);
      if (n < 0) return false;
      c.out_at += static_cast<std::size_t>(n);
    }
    if (c.out == &response) ++answered;
    c.out_at = 0;
    return true;
  };
  // Answers every whole request buffered, stopping at a response the socket would not take whole.
  const auto serve = [&](int fd, Conn& c) {
    for (;;) {
      if (c.sending) {
        if (!send_rest(fd, c)) return errno == EAGAIN || errno == EWOULDBLOCK;
        c.sending = false;
        epoll_event mod{};
        mod.events = EPOLLIN;
        mod.data.fd = fd;
        epoll_ctl(ep, EPOLL_CTL_MOD, fd, &mod);
      }
      const std::size_t n = request_length(c.in);
      if (n == std::string::npos) return false;
      if (n == 0) return true;
      c.out = c.in.starts_with("POST ") ? &response : &not_found;
      c.in.erase(0, n);
      c.sending = true;
      if (!send_rest(fd, c)) {
        if (errno != EAGAIN && errno != EWOULDBLOCK) return false;
        epoll_event mod{};
        mod.events = EPOLLIN | EPOLLOUT;
        mod.data.fd = fd;
        epoll_ctl(ep, EPOLL_CTL_MOD, fd, &mod);
        return true;
      }
      c.sending = false;
    }
  };

  while (!g_stop) {
    const int ready = epoll_wait(ep, events, 256, 200);
    for (int i = 0; i < ready; ++i) {
      const int fd = events[i].data.fd;
      if (fd == lfd) {
        for (int cfd; (cfd = accept4(lfd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0;) {
          setsockopt(cfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
          epoll_event add{};
          add.events = EPOLLIN;
          add.data.fd = cfd;
          epoll_ctl(ep, EPOLL_CTL_ADD, cfd, &add);
          conns.emplace(cfd, Conn{});
        }
        continue;
      }
      Conn& c = conns[fd];
      bool ok = true;
      if (events[i].events & EPOLLIN) {
        const ssize_t n = recv(fd, buf, sizeof buf, 0);
        if (n > 0) c.in.append(buf, static_cast<std::size_t>(n));
        else ok = n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
      }
      if (ok) ok = serve(fd, c);
      if (!ok || (events[i].events & (EPOLLHUP | EPOLLERR))) close_conn(fd);
    }
  }
  std::printf("requests %lld\n", answered);
  return 0;
}
