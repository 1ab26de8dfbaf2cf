#pragma once
// A small blocking HTTP/1.1 client for simulator tests: one request per connection
// ("Connection: close"), read to EOF, then split into status, headers, de-chunked body and SSE
// events, each event stamped with the steady-clock time of the recv() that completed it.
// Deliberately independent of src/net and src/protocol so it checks them from the outside.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/clock.hpp"

namespace sb::sim {  // the folder's namespace: one named `testing` would hide GoogleTest's in unity builds

struct RawResponse {
  int status = 0;
  std::string head;                  // status line + headers
  std::string body;                  // de-chunked when chunked
  bool chunked = false;
  bool complete = false;             // Content-Length satisfied or the last chunk seen
  std::vector<std::string> events;   // SSE data payloads
  std::vector<Nanos> event_ns;       // recv time of each event's last byte
  std::string header(const std::string& name) const {
    const auto at = head.find("\r\n" + name + ": ");
    if (at == std::string::npos) return "";
    const auto from = at + name.size() + 4;
    return head.substr(from, head.find("\r\n", from) - from);
  }
};

inline int connect_loopback(std::uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    throw std::runtime_error("connect to 127.0.0.1:" + std::to_string(port) + " failed");
  }
  const int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

// Splits raw bytes into the response; `recv_marks` = (end offset in raw, time) per recv.
inline RawResponse parse_raw(const std::string& raw, const std::vector<std::pair<std::size_t, Nanos>>& recv_marks) {
  RawResponse r;
  const auto head_end = raw.find("\r\n\r\n");
  if (head_end == std::string::npos) return r;
  r.head = raw.substr(0, head_end + 2);
  r.status = std::stoi(raw.substr(9, 3));
  r.chunked = r.header("Transfer-Encoding") == "chunked";
  std::vector<std::size_t> raw_end_of_body_byte;  // body offset -> raw offset (chunked only)
  std::size_t at = head_end + 4;
  if (!r.chunked) {
    r.body = raw.substr(at);
    const std::string cl = r.header("Content-Length");
    r.complete = !cl.empty() && r.body.size() == std::stoul(cl);
  }
  while (r.chunked && at < raw.size()) {
    const auto line_end = raw.find("\r\n", at);
    if (line_end == std::string::npos) break;
    const std::size_t len = std::stoul(raw.substr(at, line_end - at), nullptr, 16);
    if (len == 0) {
      r.complete = raw.size() >= line_end + 4;
      break;
    }
    if (raw.size() < line_end + 2 + len) break;
    for (std::size_t i = 0; i < len; ++i) raw_end_of_body_byte.push_back(line_end + 2 + i);
    r.body += raw.substr(line_end + 2, len);
    at = line_end + 2 + len + 2;
  }
  // SSE events are separated by a blank line ("\n\n"), as the simulator writes them.
  std::size_t from = 0;
  for (auto sep = r.body.find("\n\n"); sep != std::string::npos; sep = r.body.find("\n\n", from)) {
    std::string ev = r.body.substr(from, sep - from);
    if (ev.rfind("data: ", 0) == 0) {
      r.events.push_back(ev.substr(6));
      const std::size_t raw_off = r.chunked ? raw_end_of_body_byte[sep + 1] : head_end + 4 + sep + 1;
      Nanos t = recv_marks.empty() ? 0 : recv_marks.back().second;
      for (const auto& m : recv_marks) {
        if (m.first > raw_off) { t = m.second; break; }
      }
      r.event_ns.push_back(t);
    }
    from = sep + 2;
  }
  return r;
}

// Sends `request` verbatim and reads until the server closes the connection.
inline RawResponse http_exchange(std::uint16_t port, const std::string& request) {
  const int fd = connect_loopback(port);
  std::size_t sent = 0;
  while (sent < request.size()) {
    const ssize_t n = ::send(fd, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) break;
    sent += static_cast<std::size_t>(n);
  }
  std::string raw;
  std::vector<std::pair<std::size_t, Nanos>> marks;
  char buf[65536];
  for (;;) {
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    raw.append(buf, static_cast<std::size_t>(n));
    marks.emplace_back(raw.size(), now_ns());
  }
  ::close(fd);
  return parse_raw(raw, marks);
}

inline std::string post_request(const std::string& path, const std::string& body,
                                const std::string& extra_headers = "") {
  return "POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" + extra_headers +
         "Content-Length: " + std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
}

inline std::string get_request(const std::string& path, const std::string& extra_headers = "") {
  return "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n" + extra_headers + "Connection: close\r\n\r\n";
}

}  // namespace sb::sim
