#pragma once
// A tiny blocking HTTP/1.1 server for the `servebench run` end-to-end tests that records every
// request it gets (request line, headers, body), so a test can check what servebench put on the
// wire: headers, the API key, the model name, sampling fields and --extra-body. It answers
// GET [prefix]/v1/models with one model id, POST .../completions with a fixed three-token SSE stream plus a
// usage chunk (or the stream a test gives), and anything else with 404. Plain POSIX sockets keep Asio
// out of this test binary.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "e2e/loopback_listener.hpp"

namespace sb::e2e {

struct CapturedRequest {
  std::string method, path, head, body;  // head: request line and header lines as received
  // Value of header `name` (case-insensitive name), or "" when absent.
  std::string header(const std::string& name) const {
    std::size_t pos = head.find("\r\n");
    while (pos != std::string::npos && pos + 2 < head.size()) {
      const std::size_t end = head.find("\r\n", pos + 2);
      const std::string line = head.substr(pos + 2, end - pos - 2);
      const std::size_t colon = line.find(':');
      if (colon == name.size() && ::strncasecmp(line.data(), name.data(), name.size()) == 0) {
        const std::size_t value = line.find_first_not_of(' ', colon + 1);
        return value == std::string::npos ? "" : line.substr(value);
      }
      pos = end;
    }
    return "";
  }
};

class CaptureServer {
 public:
  // The SSE body of a POST .../completions answer, when a test needs another stream than the default.
  using StreamBody = std::function<std::string(const CapturedRequest&)>;

  explicit CaptureServer(std::string model_id, StreamBody stream = {})
      : model_id_(std::move(model_id)), stream_(std::move(stream)) {
    port_ = listen_on_loopback(listen_fd_);
    if (port_ == 0) return;
    acceptor_ = std::thread([this] { accept_loop(); });
  }
  ~CaptureServer() {
    stop_ = true;
    if (acceptor_.joinable()) acceptor_.join();
    {
      std::lock_guard lock(mu_);
      for (int fd : conn_fds_) ::shutdown(fd, SHUT_RDWR);  // wakes blocked reads
    }
    for (auto& t : conns_) t.join();
    for (int fd : conn_fds_) ::close(fd);  // closed only here, so no fd number is reused while shut down above
    ::close(listen_fd_);
  }
  int port() const { return port_; }
  std::vector<CapturedRequest> requests() const {
    std::lock_guard lock(mu_);
    return requests_;
  }

 private:
  void accept_loop() {
    while (!stop_) {
      pollfd p{listen_fd_, POLLIN, 0};
      if (::poll(&p, 1, 50) <= 0) continue;
      const int fd = ::accept(listen_fd_, nullptr, nullptr);
      if (fd < 0) continue;
      std::lock_guard lock(mu_);
      conn_fds_.push_back(fd);
      conns_.emplace_back([this, fd] { serve(fd); });
    }
  }

  // Keep-alive: one request after another on the same connection until the peer closes.
  void serve(int fd) {
    std::string buf;
    char chunk[4096];
    for (;;) {
      std::size_t head_end;
      while ((head_end = buf.find("\r\n\r\n")) == std::string::npos) {
        const ssize_t n = ::read(fd, chunk, sizeof chunk);
        if (n <= 0) return;
        buf.append(chunk, static_cast<std::size_t>(n));
      }
      CapturedRequest req;
      req.head = buf.substr(0, head_end + 2);
      const std::string line = req.head.substr(0, req.head.find("\r\n"));
      req.method = line.substr(0, line.find(' '));
      req.path = line.substr(line.find(' ') + 1, line.rfind(' ') - line.find(' ') - 1);
      const std::string cl = req.header("Content-Length");
      const std::size_t body_len = cl.empty() ? 0 : std::stoul(cl);
      while (buf.size() < head_end + 4 + body_len) {
        const ssize_t n = ::read(fd, chunk, sizeof chunk);
        if (n <= 0) return;
        buf.append(chunk, static_cast<std::size_t>(n));
      }
      req.body = buf.substr(head_end + 4, body_len);
      buf.erase(0, head_end + 4 + body_len);
      const std::string reply = answer(req);
      {
        std::lock_guard lock(mu_);
        requests_.push_back(std::move(req));
      }
      if (::write(fd, reply.data(), reply.size()) != static_cast<ssize_t>(reply.size())) return;
    }
  }

  std::string answer(const CapturedRequest& req) const {
    std::string status = "200 OK", type = "application/json", body;
    if (req.method == "GET" && req.path.ends_with("/v1/models")) {  // under a gateway's prefix too (/api/v1/models)
      body = R"({"object":"list","data":[{"id":")" + model_id_ + R"(","object":"model"}]})";
    } else if (req.method == "POST" && req.path.find("completions") != std::string::npos) {
      const bool chat = req.path.find("chat") != std::string::npos;
      type = "text/event-stream";
      if (stream_) return reply(status, type, stream_(req));
      const std::string choice = chat ? R"({"delta":{"content":"x"},"index":0})" : R"({"text":"x","index":0})";
      for (int i = 0; i < 3; ++i) body += "data: {\"choices\":[" + choice + "]}\n\n";
      body += "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":4,\"completion_tokens\":3}}\n\n";
      body += "data: [DONE]\n\n";
    } else {
      status = "404 Not Found";
      body = R"({"error":"not found"})";
    }
    return reply(status, type, body);
  }

  static std::string reply(const std::string& status, const std::string& type, const std::string& body) {
    return "HTTP/1.1 " + status + "\r\nContent-Type: " + type + "\r\nContent-Length: " + std::to_string(body.size()) +
           "\r\n\r\n" + body;
  }

  std::string model_id_;
  StreamBody stream_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread acceptor_;
  mutable std::mutex mu_;
  std::vector<int> conn_fds_;
  std::vector<std::thread> conns_;
  std::vector<CapturedRequest> requests_;
};

}  // namespace sb::e2e
