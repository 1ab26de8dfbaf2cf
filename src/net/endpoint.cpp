#include "net/endpoint.hpp"

#include <cctype>
#include <algorithm>
#include <charconv>

#include "core/error.hpp"

namespace sb {
namespace {

bool starts_with_nocase(std::string_view s, std::string_view prefix) {
  if (s.size() < prefix.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(s[i])) != prefix[i]) return false;
  }
  return true;
}

// The URL as an error may show it: user:password@ (a key, often) becomes ***@.
std::string shown_url(std::string_view url) {
  const std::size_t scheme = url.find("://");
  const std::size_t host_from = scheme == std::string_view::npos ? 0 : scheme + 3;
  const std::size_t host_end = std::min(url.find_first_of("/?#", host_from), url.size());
  const std::size_t at = url.substr(0, host_end).rfind('@');
  if (at == std::string_view::npos || at < host_from) return std::string(url);
  return std::string(url.substr(0, host_from)) + "***" + std::string(url.substr(at));
}

[[noreturn]] void bad_url(std::string_view url, std::string_view why) {
  throw UserError("--base-url '" + shown_url(url) + "': " + std::string(why));
}

std::uint16_t parse_port(std::string_view url, std::string_view text) {
  unsigned value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc{} || end != text.data() + text.size() || value == 0 ||
      value > 65535) {
    bad_url(url, "port '" + std::string(text) + "' is not a number in 1..65535");
  }
  return static_cast<std::uint16_t>(value);
}

// Splits "host", "host:port", "[v6]" or "[v6]:port" into ep.host / ep.port.
void parse_authority(std::string_view url, std::string_view auth, Endpoint& ep) {
  if (auth.find('@') != std::string_view::npos) {
    bad_url(url, "credentials in the URL are not supported; put the key in OPENAI_API_KEY");
  }
  std::string_view port_text;
  if (!auth.empty() && auth.front() == '[') {
    const auto close = auth.find(']');
    if (close == std::string_view::npos) bad_url(url, "missing ']' after the IPv6 address");
    ep.host = std::string(auth.substr(1, close - 1));
    const auto rest = auth.substr(close + 1);
    if (!rest.empty()) {
      if (rest.front() != ':') bad_url(url, "unexpected text after ']'");
      port_text = rest.substr(1);
      ep.port = parse_port(url, port_text);
    }
  } else {
    const auto colon = auth.rfind(':');
    if (colon != std::string_view::npos) {
      if (auth.find(':') != colon) bad_url(url, "IPv6 addresses must be in brackets, e.g. http://[::1]:8000");
      ep.port = parse_port(url, auth.substr(colon + 1));
      auth = auth.substr(0, colon);
    }
    ep.host = std::string(auth);
  }
  if (ep.host.empty()) bad_url(url, "no host name");
}

std::uint16_t default_port(bool tls) { return tls ? 443 : 80; }

}  // namespace

Endpoint parse_base_url(std::string_view url) {
  Endpoint ep;
  std::string_view rest;
  if (starts_with_nocase(url, "https://")) {
    ep.tls = true;
    rest = url.substr(8);
  } else if (starts_with_nocase(url, "http://")) {
    rest = url.substr(7);
  } else {
    bad_url(url, "expected a URL starting with http:// or https://");
  }
  ep.port = default_port(ep.tls);
  const auto slash = rest.find_first_of("/?#");
  parse_authority(url, rest.substr(0, slash), ep);
  if (slash != std::string_view::npos) {
    if (rest[slash] != '/') bad_url(url, "query strings and fragments are not supported");
    std::string_view path = rest.substr(slash);
    if (path.find_first_of("?#") != std::string_view::npos) {
      bad_url(url, "query strings and fragments are not supported");
    }
    while (!path.empty() && path.back() == '/') path.remove_suffix(1);
    ep.base_path = std::string(path);
  }
  return ep;
}

std::string join_api_path(Endpoint& ep, std::string_view endpoint_path) {
  std::string path(endpoint_path);
  if (path.empty() || path.front() != '/') path.insert(0, "/");
  constexpr std::string_view kVersion = "/v1";
  if (!ep.base_path.ends_with(kVersion)) return path;
  ep.base_path.resize(ep.base_path.size() - kVersion.size());
  const bool versioned = path == kVersion || path.starts_with("/v1/");
  return versioned ? path : std::string(kVersion) + path;
}

std::string Endpoint::authority() const {
  // Appending piecewise (not ":" + to_string(port)) avoids a GCC 12 -Wrestrict false positive.
  const bool v6 = host.find(':') != std::string::npos;
  std::string out;
  if (v6) out += '[';
  out += host;
  if (v6) out += ']';
  if (port != default_port(tls)) {
    out += ':';
    out += std::to_string(port);
  }
  return out;
}

std::string Endpoint::url(std::string_view path) const {
  return (tls ? "https://" : "http://") + authority() + base_path + std::string(path);
}

}  // namespace sb
