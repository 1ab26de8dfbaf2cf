#include "net/secrets.hpp"

#include <strings.h>

#include <cctype>
#include <string_view>

namespace sb {
namespace {

bool key_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '-'; }

}  // namespace

std::vector<std::string> secret_header_values(const std::vector<std::pair<std::string, std::string>>& headers) {
  std::vector<std::string> out;
  for (const auto& [name, value] : headers) {
    const bool secret = ::strcasecmp(name.c_str(), "authorization") == 0 ||
                        ::strcasecmp(name.c_str(), "proxy-authorization") == 0 ||
                        ::strcasecmp(name.c_str(), "x-api-key") == 0 || ::strcasecmp(name.c_str(), "api-key") == 0;
    if (!secret) continue;
    std::string_view v = value;
    const auto space = v.find(' ');
    if (space != std::string_view::npos && ::strncasecmp(v.data(), "bearer ", 7) == 0) v.remove_prefix(space + 1);
    if (v.size() >= 4) out.emplace_back(v);
  }
  return out;
}

void scrub_secrets(std::string& text, const std::vector<std::string>& secrets) {
  static constexpr std::string_view kMask = "sk-***";
  for (const std::string& secret : secrets) {
    for (auto at = text.find(secret); at != std::string::npos; at = text.find(secret, at + kMask.size())) {
      text.replace(at, secret.size(), kMask);
    }
  }
  for (std::size_t at = text.find("sk-"); at != std::string::npos; at = text.find("sk-", at + 3)) {
    if (at > 0 && key_char(text[at - 1])) continue;  // "task-..." is no key
    std::size_t end = at + 3;
    while (end < text.size() && key_char(text[end])) ++end;
    if (end - at - 3 >= 8) text.replace(at, end - at, kMask);
  }
}

}  // namespace sb
