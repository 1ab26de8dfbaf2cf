#pragma once
// A misbehaving OpenAI-compatible server for the end-to-end fault tests (fault_suite_test.cpp): a
// blocking POSIX server on 127.0.0.1:0, one thread per connection, answering GET /v1/models
// normally and every POST with the one fault it was started with. It counts the POST requests it
// RECEIVED (read in full), so a test can tell a retry that reached the server twice from one that
// did not. Error texts echo the API key it was sent, as OpenAI's 401 does ("Incorrect API key
// provided: sk-..."), so a test can check that servebench never writes it anywhere.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "e2e/loopback_listener.hpp"

namespace sb::e2e {

enum class Fault {
  none,                  // a correct chunked SSE stream (three tokens, usage, [DONE])
  status_429, status_429_empty, status_500, status_500_empty, status_503, status_503_empty,
  unauthorized_echo,     // 401 with OpenAI's text, echoing the key
  reset_mid_stream,      // one token, then a TCP reset
  missing_done,          // tokens without finish_reason, the stream ends without [DONE]
  vllm_stream_error,     // {"object":"error","message":...} inside a 200 stream
  llamacpp_stream_error, // {"error":{"code":400,...,"type":"exceed_context_size_error"}} inside a 200 stream
  split_every_byte,      // the whole response one byte per send()
  slow_first_byte,       // 1.5 s before the status line
  short_stalls,          // 0.7 s silences between chunks (the test's idle timeout is 2 s)
  stall_forever,         // one token, then silence (the test's idle timeout is 1 s)
  stall_after_headers,   // the head, then silence
  huge_event,            // one token event of 2 MiB
  http10,                // HTTP/1.0, no Content-Length, no chunking: the body ends at close
  extra_crlf,            // a CRLF after the last chunk, in the same segment or a later one
  chunk_extensions,      // chunk-size lines with extensions
  connection_close,      // "Connection: close" and a close after each reply
  close_after_reply,     // keep-alive implied, but closed after each reply (llama.cpp)
  interim_1xx,           // 100 Continue and 103 Early Hints before the 200
  error_null,            // "error": null in every normal chunk
  usage_floats,          // usage counts written as 7.0
  empty_data,            // empty `data:` events between the tokens
  stall_once,            // the kStallOnceAt-th completion request waits 1 s before its normal reply
};

inline constexpr int kStallOnceAt = 50;

// How the server ends its keep-alive connections on top of its fault (the close races of
// docs/reliability.md, "When a request is sent again"). The replies never say `Connection: close`.
struct KeepAliveClose {
  // Close this long after the end of a reply (reading nothing meanwhile, so a request written on
  // the connection waits unread in the socket), as llama.cpp's server does after each streamed
  // reply; -1: keep the connection.
  int after_reply_ms = -1;
  int every_kth = 1;          // only after every k-th reply on a connection
  int idle_timeout_ms = -1;   // close a connection idle this long (uvicorn, llama.cpp), -1: never
  int advertise_timeout_s = -1;  // add `Keep-Alive: timeout=N` to the replies (llama.cpp), -1: none
  // llama.cpp's HTTP library shuts the socket down before it closes it (a FIN, then a reset for the
  // unread request); uvicorn closes at once (the reset alone).
  bool shutdown_first = true;
};  // Fault::stall_once: the 50th completion request received

inline std::string fault_chunk(std::string_view data, std::string_view ext = "") {
  char size[32];
  std::snprintf(size, sizeof size, "%zx", data.size());
  return std::string(size) + std::string(ext) + "\r\n" + std::string(data) + "\r\n";
}

inline std::string fault_token(std::string_view text, bool last = false, std::string_view extra = "") {
  return "data: {\"id\":\"cmpl-1\",\"object\":\"text_completion\",\"choices\":[{\"index\":0,\"text\":\"" +
         std::string(text) + "\",\"finish_reason\":" + (last ? "\"length\"" : "null") + "}]" + std::string(extra) +
         "}\n\n";
}

inline std::vector<std::string> fault_events(std::string_view extra = "", std::string_view usage = "") {
  const std::string u = usage.empty() ? R"({"prompt_tokens":4,"completion_tokens":3})" : std::string(usage);
  return {fault_token("x", false, extra), fault_token("y", false, extra), fault_token("z", true, extra),
          "data: {\"choices\":[],\"usage\":" + u + "}\n\n", "data: [DONE]\n\n"};
}

inline constexpr const char* kFaultSseHead =
    "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n";

inline std::string fault_stream(const std::vector<std::string>& events, std::string_view ext = "") {
  std::string out = kFaultSseHead;
  for (const auto& e : events) out += fault_chunk(e, ext);
  return out + "0\r\n\r\n";
}

class FaultServer {
 public:
  explicit FaultServer(Fault fault, KeepAliveClose close = {}) : fault_(fault), close_(close) {
    port_ = listen_on_loopback(listen_fd_);
    if (port_ == 0) return;
    acceptor_ = std::thread([this] { accept_loop(); });
  }
  ~FaultServer() {
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
  int received() const { return received_.load(); }      // completion requests read in full
  int connections() const { return connections_.load(); }
  // The x-request-id of every completion request read in full, in the order read.
  std::vector<std::string> received_ids() const {
    std::lock_guard lock(mu_);
    return ids_;
  }

 private:
  enum class After { keep, close, reset };

  void accept_loop() {
    while (!stop_) {
      pollfd p{listen_fd_, POLLIN, 0};
      if (::poll(&p, 1, 20) <= 0) continue;
      const int fd = ::accept(listen_fd_, nullptr, nullptr);
      if (fd < 0) continue;
      const int one = 1;
      ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      ++connections_;
      std::lock_guard lock(mu_);
      fds_.push_back(fd);
      threads_.emplace_back([this, fd] { serve(fd); });
    }
  }

  enum class Route { models, completions, other };

  // Reads one request; false on close or stop. `key` gets the bearer token.
  bool read_request(int fd, std::string& buf, std::string& key, Route& route, std::string& id) {
    std::size_t head_end;
    while ((head_end = buf.find("\r\n\r\n")) == std::string::npos) {
      if (!fill(fd, buf, buf.empty() ? close_.idle_timeout_ms : -1)) return false;
    }
    const std::string head = buf.substr(0, head_end + 2);
    const std::string line = head.substr(0, head.find("\r\n"));
    route = line.rfind("GET /v1/models ", 0) == 0                                        ? Route::models
            : line.rfind("POST ", 0) == 0 && line.find("completions ") != std::string::npos ? Route::completions
                                                                                           : Route::other;
    std::size_t length = 0;
    key.clear();
    id.clear();
    for (std::size_t pos = head.find("\r\n"); pos != std::string::npos && pos + 2 < head.size();) {
      const std::size_t end = head.find("\r\n", pos + 2);
      const std::string line = head.substr(pos + 2, end - pos - 2);
      if (::strncasecmp(line.c_str(), "content-length:", 15) == 0) length = std::stoul(line.substr(15));
      if (::strncasecmp(line.c_str(), "authorization: bearer ", 22) == 0) key = line.substr(22);
      if (::strncasecmp(line.c_str(), "x-request-id: ", 14) == 0) id = line.substr(14);
      pos = end;
    }
    while (buf.size() < head_end + 4 + length) {
      if (!fill(fd, buf)) return false;
    }
    buf.erase(0, head_end + 4 + length);
    return true;
  }

  // `idle_ms` >= 0: gives up (the connection is closed) after that long without a byte.
  bool fill(int fd, std::string& buf, int idle_ms = -1) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(idle_ms);
    for (;;) {
      if (stop_) return false;
      int wait_ms = 20;
      if (idle_ms >= 0) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
        if (left.count() <= 0) return false;
        wait_ms = std::min<int>(wait_ms, static_cast<int>(left.count()));
      }
      pollfd p{fd, POLLIN, 0};
      if (::poll(&p, 1, wait_ms) <= 0) continue;
      char chunk[16384];
      const ssize_t n = ::read(fd, chunk, sizeof chunk);
      if (n <= 0) return false;
      buf.append(chunk, static_cast<std::size_t>(n));
      return true;
    }
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
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
    while (!stop_ && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }

  void serve(int fd) {
    std::string buf, key, id;
    Route route = Route::other;
    int served = 0;
    bool shut_down = false;
    while (read_request(fd, buf, key, route, id)) {
      After after = After::keep;
      if (route == Route::models) {
        send_all(fd, status_reply(200, "OK", R"({"object":"list","data":[{"id":"m1","object":"model"}]})"));
      } else if (route == Route::other) {  // /tokenize and the like: not served
        send_all(fd, status_reply(404, "Not Found", R"({"detail":"Not Found"})"));
      } else {
        ++received_;
        {
          std::lock_guard lock(mu_);
          ids_.push_back(id);
        }
        after = answer(fd, key, served++);
        if (after == After::keep && close_.after_reply_ms >= 0 && served % close_.every_kth == 0) {
          // Nothing read meanwhile: a request the client sends now waits unread until the close.
          std::this_thread::sleep_for(std::chrono::milliseconds(close_.after_reply_ms));
          if (close_.shutdown_first) ::shutdown(fd, SHUT_RDWR);
          shut_down = true;
          after = After::close;
        }
      }
      if (after == After::reset) {
        const linger hard{1, 0};
        ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &hard, sizeof hard);
      }
      if (after != After::keep) break;
    }
    if (!shut_down && close_.idle_timeout_ms >= 0 && close_.shutdown_first) ::shutdown(fd, SHUT_RDWR);
    std::lock_guard lock(mu_);  // closed here (a reset needs the close), so forget it first
    fds_.erase(std::remove(fds_.begin(), fds_.end(), fd), fds_.end());
    ::close(fd);
  }

  static std::string status_reply(int code, const char* reason, const std::string& body) {
    return "HTTP/1.1 " + std::to_string(code) + " " + reason + "\r\nContent-Type: application/json\r\nContent-Length: " +
           std::to_string(body.size()) + "\r\n\r\n" + body;
  }
  static std::string openai_error(const std::string& message, const char* type) {
    return R"({"error":{"message":")" + message + R"(","type":")" + type + R"(","param":null,"code":null}})";
  }

  After answer(int fd, const std::string& key, int nth) {
    std::string normal = fault_stream(fault_events());
    if (close_.advertise_timeout_s >= 0)
      normal.insert(normal.find("\r\n") + 2, "Keep-Alive: timeout=" + std::to_string(close_.advertise_timeout_s) + ", max=100\r\n");
    switch (fault_) {
      case Fault::none: send_all(fd, normal); return After::keep;
      case Fault::status_429:
        send_all(fd, status_reply(429, "Too Many Requests", openai_error("Rate limit reached for key " + key, "requests")));
        return After::keep;
      case Fault::status_429_empty: send_all(fd, status_reply(429, "Too Many Requests", "")); return After::keep;
      case Fault::status_500:
        send_all(fd, status_reply(500, "Internal Server Error", openai_error("engine died serving " + key, "server_error")));
        return After::keep;
      case Fault::status_500_empty: send_all(fd, status_reply(500, "Internal Server Error", "")); return After::keep;
      case Fault::status_503:
        send_all(fd, status_reply(503, "Service Unavailable", openai_error("overloaded; key " + key, "server_error")));
        return After::keep;
      case Fault::status_503_empty: send_all(fd, status_reply(503, "Service Unavailable", "")); return After::close;
      case Fault::unauthorized_echo:
        send_all(fd, status_reply(401, "Unauthorized",
                                  openai_error("Incorrect API key provided: " + key +
                                                   ". You can find your API key at https://platform.openai.com/account/api-keys.",
                                               "invalid_request_error")));
        return After::keep;
      case Fault::reset_mid_stream:
        send_all(fd, std::string(kFaultSseHead) + fault_chunk(fault_token("x")));
        pause_ms(30);
        return After::reset;
      case Fault::missing_done: {
        std::string s = kFaultSseHead;
        for (const char* t : {"x", "y", "z"}) s += fault_chunk(fault_token(t));
        send_all(fd, s + "0\r\n\r\n");
        return After::keep;
      }
      case Fault::vllm_stream_error:
        send_all(fd, std::string(kFaultSseHead) + fault_chunk(fault_token("x")) +
                         fault_chunk(R"(data: {"object":"error","message":"prompt is too long for )" + key +
                                     R"(","type":"BadRequestError","param":null,"code":400})" "\n\n") +
                         fault_chunk("data: [DONE]\n\n") + "0\r\n\r\n");
        return After::keep;
      case Fault::llamacpp_stream_error:
        send_all(fd, std::string(kFaultSseHead) +
                         fault_chunk(R"(data: {"error":{"code":400,"message":"the request exceeds the available context size ()" +
                                     key + R"j()","type":"exceed_context_size_error","n_prompt_tokens":9000,"n_ctx":4096}})j"
                                           "\n\n") +
                         "0\r\n\r\n");
        return After::keep;
      case Fault::split_every_byte:
        for (char c : normal) {
          if (!send_all(fd, std::string_view(&c, 1))) break;
        }
        return After::keep;
      case Fault::slow_first_byte: pause_ms(1500); send_all(fd, normal); return After::keep;
      case Fault::stall_once:
        if (received_.load() == kStallOnceAt) pause_ms(1000);
        send_all(fd, normal);
        return After::keep;
      case Fault::short_stalls: {
        send_all(fd, kFaultSseHead);
        for (const auto& e : fault_events()) {
          pause_ms(700);
          send_all(fd, fault_chunk(e));
        }
        send_all(fd, "0\r\n\r\n");
        return After::keep;
      }
      case Fault::stall_forever:
        send_all(fd, std::string(kFaultSseHead) + fault_chunk(fault_token("x")));
        pause_ms(30000);
        return After::close;
      case Fault::stall_after_headers:
        send_all(fd, kFaultSseHead);
        pause_ms(30000);
        return After::close;
      case Fault::huge_event: {
        std::vector<std::string> events = fault_events();
        events[0] = fault_token(std::string(2 * 1024 * 1024, 'h'));
        send_all(fd, fault_stream(events));
        return After::keep;
      }
      case Fault::http10: {
        std::string s = "HTTP/1.0 200 OK\r\nContent-Type: text/event-stream\r\n\r\n";
        for (const auto& e : fault_events()) s += e;
        send_all(fd, s);
        return After::close;
      }
      case Fault::extra_crlf:
        if (nth % 2 == 0) {
          send_all(fd, normal + "\r\n");
        } else {
          send_all(fd, normal);
          pause_ms(5);
          send_all(fd, "\r\n");
        }
        return After::keep;
      case Fault::chunk_extensions: send_all(fd, fault_stream(fault_events(), ";ext=1;name=\"v a\"")); return After::keep;
      case Fault::connection_close: {
        std::string s = normal;
        s.insert(s.find("\r\n") + 2, "Connection: close\r\n");
        send_all(fd, s);
        return After::close;
      }
      case Fault::close_after_reply: send_all(fd, normal); return After::close;
      case Fault::interim_1xx:
        send_all(fd, "HTTP/1.1 100 Continue\r\n\r\n");
        send_all(fd, "HTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\n\r\n" + normal);
        return After::keep;
      case Fault::error_null: send_all(fd, fault_stream(fault_events(R"(,"error":null)"))); return After::keep;
      case Fault::usage_floats:
        send_all(fd, fault_stream(fault_events("", R"({"prompt_tokens":4.0,"completion_tokens":7.0,"total_tokens":11.0})")));
        return After::keep;
      case Fault::empty_data: {
        std::vector<std::string> events = fault_events();
        events.insert(events.begin() + 1, "data:\n\n");
        events.insert(events.begin() + 3, "data: \n\n");
        send_all(fd, fault_stream(events));
        return After::keep;
      }
    }
    return After::close;
  }

  Fault fault_;
  KeepAliveClose close_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> received_{0}, connections_{0};
  std::thread acceptor_;
  mutable std::mutex mu_;
  std::vector<int> fds_;
  std::vector<std::string> ids_;
  std::vector<std::thread> threads_;
};

}  // namespace sb::e2e
