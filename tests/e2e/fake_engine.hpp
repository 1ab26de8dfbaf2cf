#pragma once
// A small fake of each engine's dialect (docs/engines.md) for the end-to-end tests: a blocking
// POSIX server on 127.0.0.1:0, one thread per connection, answering like vLLM, SGLang, TGI or
// llama.cpp's llama-server would: its probe endpoints (/v1/models, /props, /get_model_info,
// /get_server_info, /info, /version, /health, the Server header), its own /tokenize shape, and
// streamed completions and chat with usage where that engine puts it. The bodies are
// fake_engine_shapes.hpp's; this file is the sockets. Only streaming requests are served
// (servebench always streams).
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "e2e/fake_engine_shapes.hpp"
#include "e2e/loopback_listener.hpp"

namespace sb::e2e {

struct FakeEngineOptions {
  // /v1/models without owned_by/meta and no Server header, so only the engine's own probe
  // endpoint (/props, /get_model_info, /info, /version) tells it apart.
  bool anonymous_models = false;
  int ttft_ms = 0;   // before the first token
  int itl_ms = 0;    // between tokens
  int n_ctx = 4096;  // llama.cpp: prompt + max_tokens beyond it -> 400 exceed_context_size_error
};

class FakeEngine {
 public:
  using Json = FakeEngineShapes::Json;

  explicit FakeEngine(Dialect d, FakeEngineOptions opt = {})
      : shapes_(d, opt.anonymous_models, opt.n_ctx), opt_(opt) {
    port_ = listen_on_loopback(listen_fd_);
    if (port_ != 0) acceptor_ = std::thread([this] { accept_loop(); });
  }
  ~FakeEngine() {
    stop_ = true;
    if (acceptor_.joinable()) acceptor_.join();
    {
      std::lock_guard lock(mu_);
      for (int fd : fds_) ::shutdown(fd, SHUT_RDWR);
    }
    for (auto& t : threads_) t.join();
    for (int fd : fds_) ::close(fd);
    ::close(listen_fd_);
  }
  int port() const { return port_; }
  std::string port_text() const { return std::to_string(port_); }
  std::string model() const { return shapes_.model(); }
  int tokenize_calls() const { return tokenize_calls_.load(); }
  // /tokenize bodies in another engine's shape (llama.cpp: {"prompt"} and no "content").
  int foreign_tokenize_calls() const { return foreign_tokenize_calls_.load(); }
  int generations() const { return generations_.load(); }
  // Σ prompt tokens of the generation requests received, as this engine counted them.
  long prompt_tokens_received() const { return prompt_tokens_received_.load(); }

 private:
  struct Request {
    std::string method, path, body;
  };

  void accept_loop() {
    while (!stop_) {
      pollfd p{listen_fd_, POLLIN, 0};
      if (::poll(&p, 1, 20) <= 0) continue;
      const int fd = ::accept(listen_fd_, nullptr, nullptr);
      if (fd < 0) continue;
      const int one = 1;
      ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      std::lock_guard lock(mu_);
      fds_.push_back(fd);
      threads_.emplace_back([this, fd] { serve(fd); });
    }
  }

  bool fill(int fd, std::string& buf) {
    while (!stop_) {
      pollfd p{fd, POLLIN, 0};
      if (::poll(&p, 1, 20) <= 0) continue;
      char chunk[16384];
      const ssize_t n = ::read(fd, chunk, sizeof chunk);
      if (n <= 0) return false;
      buf.append(chunk, static_cast<std::size_t>(n));
      return true;
    }
    return false;
  }

  bool read_request(int fd, std::string& buf, Request& req) {
    std::size_t head_end;
    while ((head_end = buf.find("\r\n\r\n")) == std::string::npos) {
      if (!fill(fd, buf)) return false;
    }
    const std::string head = buf.substr(0, head_end + 2);
    const std::size_t sp1 = head.find(' '), sp2 = head.find(' ', sp1 + 1);
    req.method = head.substr(0, sp1);
    req.path = head.substr(sp1 + 1, sp2 - sp1 - 1);
    std::size_t length = 0;
    for (std::size_t pos = head.find("\r\n"); pos != std::string::npos && pos + 2 < head.size();) {
      const std::size_t end = head.find("\r\n", pos + 2);
      const std::string line = head.substr(pos + 2, end - pos - 2);
      if (::strncasecmp(line.c_str(), "content-length:", 15) == 0) length = std::stoul(line.substr(15));
      pos = end;
    }
    while (buf.size() < head_end + 4 + length) {
      if (!fill(fd, buf)) return false;
    }
    req.body = buf.substr(head_end + 4, length);
    buf.erase(0, head_end + 4 + length);
    return true;
  }

  bool send_all(int fd, std::string_view bytes) {
    while (!bytes.empty()) {
      const ssize_t n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (n <= 0) return false;
      bytes.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
  }

  void pause_ms(int ms) {
    if (ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(ms));
  }

  void serve(int fd) {
    std::string buf;
    Request req;
    try {
      while (read_request(fd, buf, req)) {
        if (!answer(fd, req)) break;
      }
    } catch (const std::exception& e) {
      // A request this fake cannot read: say so where the test output shows it, and hang up.
      std::fprintf(stderr, "fake engine: %s\n", e.what());
    }
  }

  bool reply(int fd, int status, const std::string& body) {
    const char* reason = status == 200 ? "OK" : status == 404 ? "Not Found" : status == 400 ? "Bad Request"
                                                                                             : "Unprocessable Entity";
    return send_all(fd, "HTTP/1.1 " + std::to_string(status) + " " + reason + "\r\n" + shapes_.server_header() +
                            "Content-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
                            "\r\n\r\n" + body);
  }

  bool answer(int fd, const Request& req) {
    if (req.method == "GET") {
      const FakeReply r = shapes_.get(req.path);
      return reply(fd, r.status, r.body);
    }
    const Json body = Json::parse(req.body, nullptr, /*allow_exceptions=*/false);
    if (req.path == "/tokenize") {
      ++tokenize_calls_;
      const FakeReply r = shapes_.tokenize(body);
      if (r.foreign) ++foreign_tokenize_calls_;
      return reply(fd, r.status, r.body);
    }
    if (req.path != "/v1/completions" && req.path != "/v1/chat/completions") return reply(fd, 404, shapes_.not_found_body());
    if (!body.is_object()) return reply(fd, 400, R"({"error":"body is not JSON"})");
    const FakeGeneration g = shapes_.generation(body, req.path == "/v1/chat/completions");
    ++generations_;
    prompt_tokens_received_ += g.prompt_tokens;
    if (const std::string error = shapes_.context_error(g); !error.empty()) return reply(fd, 400, error);
    return stream(fd, g);
  }

  static std::string http_chunk(const std::string& data) {
    char size[32];
    std::snprintf(size, sizeof size, "%zx\r\n", data.size());
    return size + data + "\r\n";
  }
  static std::string sse(const Json& event) { return http_chunk("data: " + event.dump() + "\n\n"); }

  bool stream(int fd, const FakeGeneration& g) {
    using Clock = std::chrono::steady_clock;
    const auto t0 = Clock::now();
    const auto ms_since = [](Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); };
    const std::string head = "HTTP/1.1 200 OK\r\n" + shapes_.server_header() +
                             "Content-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n";
    if (!send_all(fd, head)) return false;
    pause_ms(opt_.ttft_ms);
    for (const Json& e : shapes_.role_chunks(g)) {
      if (!send_all(fd, sse(e))) return false;
    }
    const double prompt_ms = ms_since(t0);
    const auto t_first = Clock::now();
    for (int i = 0; i < g.max_tokens; ++i) {
      if (i > 0) pause_ms(opt_.itl_ms);
      if (!send_all(fd, sse(shapes_.token_chunk(g, i)))) return false;
    }
    std::string tail;
    for (const Json& e : shapes_.final_chunks(g, FakeEngineShapes::timings_of(g, prompt_ms, ms_since(t_first)))) tail += sse(e);
    return send_all(fd, tail + http_chunk("data: [DONE]\n\n") + "0\r\n\r\n");
  }

  FakeEngineShapes shapes_;
  FakeEngineOptions opt_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> tokenize_calls_{0}, foreign_tokenize_calls_{0}, generations_{0};
  std::atomic<long> prompt_tokens_received_{0};
  std::thread acceptor_;
  std::mutex mu_;
  std::vector<int> fds_;
  std::vector<std::thread> threads_;
};

}  // namespace sb::e2e
