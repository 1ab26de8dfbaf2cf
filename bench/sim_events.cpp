// Throughput of `servebench sim`: SSE events/s and requests/s it serves with zero simulated delay
// (or a given ITL), to K keep-alive connections in a closed loop. The client is a minimal epoll
// loop on one thread that only counts events, so it costs far less per event than the server.
//
//   sim_events [connections=64] [seconds=5] [tokens=64] [itl_ms=0] [-- SIM ARGS...]
// Prints events/s, requests/s, errors (non-200 answers, closed connections) and the server's CPU
// seconds per million events (from /proc). SIM ARGS after "--" replace the default
// `--ttft-ms 0 --itl-ms ITL` (e.g. `-- --cost engine --model-preset llama-3.2-1b --time-scale 50`).
// On a machine with 2+ CPUs the server is pinned to CPU 0 and the client to CPU 1 (as `taskset`
// would), so "one core" in the numbers means exactly that.
#include <fcntl.h>
#include <sched.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <cstring>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.hpp"

namespace {

struct Conn {
  int fd = -1;
  char tail[32];           // last bytes of the previous read, for markers split across reads
  std::size_t tail_len = 0;
};

void pin_to_cpu(int cpu) {
  if (::sysconf(_SC_NPROCESSORS_ONLN) < 2) return;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  ::sched_setaffinity(0, sizeof set, &set);
}

pid_t start_sim(std::vector<std::string> args, std::uint16_t& port) {
  int out[2];
  if (::pipe(out) != 0) std::exit(1);
  const pid_t pid = ::fork();
  if (pid == 0) {
    pin_to_cpu(0);
    ::dup2(out[1], STDOUT_FILENO);
    args.insert(args.begin(), {SB_BINARY, "sim", "--port", "0"});
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv(SB_BINARY, argv.data());
    ::_exit(127);
  }
  ::close(out[1]);
  char line[128] = {};
  const ssize_t n = ::read(out[0], line, sizeof line - 1);
  const char* colon = n > 0 ? std::strrchr(line, ':') : nullptr;
  if (!colon) {
    std::fprintf(stderr, "sim did not start\n");
    std::exit(1);
  }
  port = static_cast<std::uint16_t>(std::atoi(colon + 1));
  return pid;
}

double cpu_seconds(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string field;
  double ticks = 0;
  for (int i = 1; i <= 15 && stat >> field; ++i) {
    if (i == 14 || i == 15) ticks += std::stod(field);  // utime, stime
  }
  return ticks / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

int connect_to(std::uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) std::exit(1);
  const int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  ::fcntl(fd, F_SETFL, O_NONBLOCK);
  return fd;
}

std::size_t count(std::string_view hay, std::string_view needle) {
  std::size_t n = 0;
  for (auto at = hay.find(needle); at != std::string_view::npos; at = hay.find(needle, at + 1)) ++n;
  return n;
}

}  // namespace

int main(int argc, char** argv) {
  const int conns = argc > 1 ? std::atoi(argv[1]) : 64;
  const double seconds = argc > 2 ? std::atof(argv[2]) : 5;
  const int tokens = argc > 3 ? std::atoi(argv[3]) : 64;
  const std::string itl = argc > 4 ? argv[4] : "0";
  std::vector<std::string> sim_args = {"--ttft-ms", "0", "--itl-ms", itl, "--max-model-len", "0"};
  for (int i = 1; i < argc; ++i) {
    if (std::string_view(argv[i]) == "--") {
      sim_args.assign(argv + i + 1, argv + argc);
      break;
    }
  }
  std::uint16_t port = 0;
  const pid_t sim = start_sim(sim_args, port);
  pin_to_cpu(1);
  const std::string body = "{\"prompt\":\"hello\",\"max_tokens\":" + std::to_string(tokens) + ",\"stream\":true}";
  const std::string req = "POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: " +
                          std::to_string(body.size()) + "\r\n\r\n" + body;
  const int ep = ::epoll_create1(0);
  std::vector<Conn> c(static_cast<std::size_t>(conns));
  for (int i = 0; i < conns; ++i) {
    c[i].fd = connect_to(port);
    epoll_event ev{EPOLLIN, {.u32 = static_cast<std::uint32_t>(i)}};
    ::epoll_ctl(ep, EPOLL_CTL_ADD, c[i].fd, &ev);
    ::send(c[i].fd, req.data(), req.size(), MSG_NOSIGNAL);
  }
  std::vector<char> buf(1 << 16);
  std::vector<epoll_event> ready(256);
  std::uint64_t events = 0, done = 0, errors = 0;
  const std::string_view kEvent = "data: {", kEnd = "[DONE]\n\n\r\n0\r\n\r\n";
  const double cpu0 = cpu_seconds(sim), client_cpu0 = cpu_seconds(::getpid());
  const sb::Nanos t0 = sb::now_ns(), end = t0 + static_cast<sb::Nanos>(seconds * 1e9);
  while (sb::now_ns() < end) {
    const int n = ::epoll_wait(ep, ready.data(), static_cast<int>(ready.size()), 100);
    for (int k = 0; k < n; ++k) {
      Conn& cn = c[ready[k].data.u32];
      // Read behind the carried tail so markers split across reads are still found, without copies.
      std::memcpy(buf.data(), cn.tail, cn.tail_len);
      const ssize_t got = ::recv(cn.fd, buf.data() + cn.tail_len, buf.size() - cn.tail_len, 0);
      if (got == 0) {  // the server closed the connection: an error, and this stream is gone
        ++errors;
        ::epoll_ctl(ep, EPOLL_CTL_DEL, cn.fd, nullptr);
        ::close(cn.fd);
        continue;
      }
      if (got < 0) continue;
      const std::string_view view(buf.data(), cn.tail_len + static_cast<std::size_t>(got));
      events += count(view, kEvent) - count(view.substr(0, cn.tail_len), kEvent);  // token events only
      errors += count(view, "HTTP/1.1 4") + count(view, "HTTP/1.1 5");
      if (view.find(kEnd) != std::string_view::npos) {  // response complete: next request
        ++done;
        cn.tail_len = 0;
        ::send(cn.fd, req.data(), req.size(), MSG_NOSIGNAL);
        continue;
      }
      cn.tail_len = std::min<std::size_t>(view.size(), 24);
      std::memmove(cn.tail, view.data() + view.size() - cn.tail_len, cn.tail_len);
    }
  }
  const double wall_s = sb::ns_to_s(sb::now_ns() - t0);
  const double cpu = cpu_seconds(sim) - cpu0;
  const double client_cpu = cpu_seconds(::getpid()) - client_cpu0;
  ::kill(sim, SIGTERM);
  ::waitpid(sim, nullptr, 0);
  std::printf("connections=%d tokens=%d itl_ms=%s: %.0f events/s, %.0f requests/s, %llu errors, server CPU %.0f%%, "
              "%.2f server-CPU-us/event, client CPU %.0f%%\n",
              conns, tokens, itl.c_str(), static_cast<double>(events) / wall_s, static_cast<double>(done) / wall_s,
              static_cast<unsigned long long>(errors), 100 * cpu / wall_s,
              events ? cpu * 1e6 / static_cast<double>(events) : 0.0, 100 * client_cpu / wall_s);
  return 0;
}
