#pragma once
// A tiny HTTP/1.1 test server on raw POSIX sockets (no Asio, independent of the simulator): one
// thread per connection, each request handed to a test-supplied handler that writes raw bytes,
// sleeps, or closes. Counts connections, requests and the peak number of concurrent requests.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace sb::test {

struct FakeRequest {
  std::string head;  // request line and headers
  std::string body;
};

class FakeConn {
 public:
  FakeConn(int fd, const std::atomic<bool>& stopping) : fd_(fd), stopping_(&stopping) {}
  bool send(std::string_view bytes) {
    last_send_start = std::chrono::steady_clock::now();
    while (!bytes.empty()) {
      const ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (n <= 0) return false;
      bytes.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
  }
  // Sleeps in small steps so a stopping server is not held up by a stalled handler.
  void sleep_ms(int ms) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
    while (!stopping_->load() && std::chrono::steady_clock::now() < until) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  }

  // When the latest send() began: the client cannot have seen the end of the response earlier.
  std::chrono::steady_clock::time_point last_send_start;

 private:
  int fd_;
  const std::atomic<bool>* stopping_;
};

// Returns false to close the connection after this request.
using FakeHandler = std::function<bool(FakeConn&, const FakeRequest&)>;

class FakeServer {
 public:
  explicit FakeServer(FakeHandler handler) : handler_(std::move(handler)) {
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    const int one = 1;
    ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    ::listen(listen_fd_, 1024);
    socklen_t len = sizeof addr;
    ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    acceptor_ = std::thread([this] { accept_loop(); });
  }

  ~FakeServer() {
    stopping_ = true;
    acceptor_.join();
    {
      std::lock_guard<std::mutex> lk(mu_);
      for (int fd : open_fds_) ::shutdown(fd, SHUT_RDWR);
    }
    for (auto& t : conn_threads_) t.join();
    ::close(listen_fd_);
  }

  std::uint16_t port() const { return port_; }
  int connections() const { return connections_.load(); }
  int requests() const { return requests_.load(); }
  // Peak number of requests in progress at once. A request counts from when its head was read
  // until its handler's last send() began: counting until the handler returned would overlap the
  // client's next request, which can arrive before the handler thread runs again.
  int max_concurrent() const {
    std::lock_guard<std::mutex> lk(mu_);
    int peak = 0;
    for (const auto& [start, end] : intervals_) {
      int active = 0;
      for (const auto& [s2, e2] : intervals_) active += (s2 <= start && start < e2) ? 1 : 0;
      peak = std::max(peak, active);
    }
    return peak;
  }

  // A loopback port nobody listens on (bound, then closed).
  static std::uint16_t closed_port() {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    socklen_t len = sizeof addr;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
    ::close(fd);
    return ntohs(addr.sin_port);
  }

 private:
  void accept_loop() {
    while (!stopping_) {
      pollfd p{listen_fd_, POLLIN, 0};
      if (::poll(&p, 1, 20) <= 0) continue;
      const int fd = ::accept(listen_fd_, nullptr, nullptr);
      if (fd < 0) continue;
      ++connections_;
      std::lock_guard<std::mutex> lk(mu_);
      open_fds_.push_back(fd);
      conn_threads_.emplace_back([this, fd] { serve(fd); });
    }
  }

  // Reads one request (head + Content-Length body) into `req`; false on EOF or stop.
  bool read_request(int fd, std::string& buf, FakeRequest& req) {
    for (;;) {
      const auto head_end = buf.find("\r\n\r\n");
      if (head_end != std::string::npos) {
        std::size_t length = 0;
        std::string lower(buf.substr(0, head_end));
        std::transform(lower.begin(), lower.end(), lower.begin(), ::tolower);
        const auto cl = lower.find("content-length:");
        if (cl != std::string::npos) length = std::stoul(lower.substr(cl + 15));
        if (buf.size() >= head_end + 4 + length) {
          req.head = buf.substr(0, head_end);
          req.body = buf.substr(head_end + 4, length);
          buf.erase(0, head_end + 4 + length);
          return true;
        }
      }
      pollfd p{fd, POLLIN, 0};
      if (stopping_) return false;
      if (::poll(&p, 1, 20) <= 0) continue;
      char tmp[16384];
      const ssize_t n = ::recv(fd, tmp, sizeof tmp, 0);
      if (n <= 0) return false;
      buf.append(tmp, static_cast<std::size_t>(n));
    }
  }

  void serve(int fd) {
    FakeConn conn(fd, stopping_);
    std::string buf;
    FakeRequest req;
    while (read_request(fd, buf, req)) {
      ++requests_;
      const auto start = std::chrono::steady_clock::now();
      conn.last_send_start = start;
      const bool keep = handler_(conn, req);
      {
        std::lock_guard<std::mutex> lk(mu_);
        intervals_.emplace_back(start, std::max(conn.last_send_start, start + std::chrono::nanoseconds(1)));
      }
      if (!keep) break;
    }
    std::lock_guard<std::mutex> lk(mu_);
    open_fds_.erase(std::remove(open_fds_.begin(), open_fds_.end(), fd), open_fds_.end());
    ::close(fd);
  }

  FakeHandler handler_;
  int listen_fd_ = -1;
  std::uint16_t port_ = 0;
  std::atomic<bool> stopping_{false};
  std::atomic<int> connections_{0}, requests_{0};
  mutable std::mutex mu_;
  std::vector<std::pair<std::chrono::steady_clock::time_point, std::chrono::steady_clock::time_point>> intervals_;
  std::vector<int> open_fds_;
  std::vector<std::thread> conn_threads_;
  std::thread acceptor_;
};

// Pieces of canned responses.
inline std::string http_chunk(std::string_view data) {
  char size[32];
  std::snprintf(size, sizeof size, "%zx\r\n", data.size());
  return std::string(size) + std::string(data) + "\r\n";
}
inline const char* kSseHead =
    "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n";
inline const char* kLastChunk = "0\r\n\r\n";
inline std::string token_event(std::string_view text, bool last = false) {
  return std::string("data: {\"choices\":[{\"index\":0,\"text\":\"") + std::string(text) +
         "\",\"finish_reason\":" + (last ? "\"length\"" : "null") + "}]}\n\n";
}
inline std::string json_response(int status, std::string_view reason, std::string_view body) {
  return "HTTP/1.1 " + std::to_string(status) + " " + std::string(reason) +
         "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
         "\r\n\r\n" + std::string(body);
}

}  // namespace sb::test
