// The Keep-Alive header's timeout (see keep_alive_header.hpp).
#include "exec/keep_alive_header.hpp"

#include <cctype>

namespace sb {
namespace {

constexpr int kMaxTimeoutS = 86400;  // a day: anything longer is no idle limit worth keeping to

std::string_view trim(std::string_view s) noexcept {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool equals_nocase(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  return true;
}

int whole_seconds(std::string_view v) noexcept {
  if (v.size() >= 2 && v.front() == '"' && v.back() == '"') v = v.substr(1, v.size() - 2);
  if (v.empty()) return -1;
  int n = 0;
  for (char c : v) {
    if (c < '0' || c > '9') return -1;
    n = n * 10 + (c - '0');
    if (n > kMaxTimeoutS) return -1;
  }
  return n;
}

}  // namespace

int keep_alive_timeout_s(std::string_view value) noexcept {
  while (!value.empty()) {
    const std::size_t comma = value.find(',');
    const std::string_view param = trim(value.substr(0, comma));
    value = comma == std::string_view::npos ? std::string_view() : value.substr(comma + 1);
    const std::size_t eq = param.find('=');
    if (eq == std::string_view::npos) continue;
    if (equals_nocase(trim(param.substr(0, eq)), "timeout")) return whole_seconds(trim(param.substr(eq + 1)));
  }
  return -1;
}

}  // namespace sb
