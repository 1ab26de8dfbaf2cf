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

// The request path for --endpoint `endpoint_path` under `ep`, and `ep.base_path` made the prefix of
// every other API path too (GET /v1/models, /tokenize). OpenAI SDK base URLs end in the API version
// (http://h/v1, https://gw/api/v1) while our paths carry it (/v1/completions), so a base path
// ending in "/v1" gives that "/v1" to the path: to none when the path starts with /v1 already
// (no /v1/v1/completions), in front of it when not (/completions -> /v1/completions). Any other
// prefix (/api) stays on the base. A missing leading '/' is added. docs/run.md, "Base URL and path".
std::string join_api_path(Endpoint& ep, std::string_view endpoint_path);

}  // namespace sb
