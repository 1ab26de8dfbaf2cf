#pragma once
// Where the server is: parsed from --base-url or --host/--port (sans-I/O).
#include <cstdint>
#include <string>
#include <string_view>

namespace sb {

struct Endpoint {
  bool tls = false;          // https
  std::string host;          // without brackets for IPv6
  std::uint16_t port = 80;
  std::string base_path;     // path prefix of --base-url without trailing '/', e.g. "/api" or ""
  bool insecure = false;     // --insecure: skip TLS certificate verification

  std::string authority() const;          // host[:port] as sent in Host (brackets for IPv6)
  std::string url(std::string_view path) const;  // for messages: scheme://authority + base_path + path
};

// "http://h:8000/api" -> Endpoint. Throws sb::UserError on malformed URLs.
Endpoint parse_base_url(std::string_view url);

}  // namespace sb
