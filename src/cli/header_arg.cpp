#include "cli/header_arg.hpp"

#include <fmt/format.h>

#include <string_view>

#include "net/secrets.hpp"

namespace sb::cli {

namespace {

std::string trimmed(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return std::string(s);
}

// RFC 9110 §5.6.2 token characters.
bool is_token(std::string_view name) {
  static constexpr std::string_view kExtra = "!#$%&'*+-.^_`|~";
  if (name.empty()) return false;
  for (char c : name) {
    const auto u = static_cast<unsigned char>(c);
    const bool alnum = (u >= '0' && u <= '9') || (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z');
    if (!alnum && kExtra.find(c) == std::string_view::npos) return false;
  }
  return true;
}

// What an error may show of `arg`: up to the first separator, at most 40 bytes, key shapes masked.
std::string shown_name(std::string_view arg) {
  std::string name(arg.substr(0, std::min(arg.find_first_of(":= \t"), std::size_t{40})));
  scrub_secrets(name, {});
  return name;
}

}  // namespace

HeaderArg parse_header_arg(const std::string& arg) {
  HeaderArg out;
  const std::size_t colon = arg.find(':');
  const std::size_t equals = arg.find('=');
  // "Name: value" when the colon comes first (a value may hold '=': base64 keys end in it).
  const bool colon_form = colon != std::string::npos && (equals == std::string::npos || colon < equals);
  const std::size_t at = colon_form ? colon : equals;
  if (at == std::string::npos) {
    out.error = fmt::format("'{}...' is neither KEY=VALUE nor 'Name: value' (the value is not shown)", shown_name(arg));
    return out;
  }
  std::string name = trimmed(std::string_view(arg).substr(0, at));
  std::string value = trimmed(std::string_view(arg).substr(at + 1));
  if (!is_token(name)) {
    out.error = fmt::format("'{}...': a header name is letters, digits and !#$%&'*+-.^_`|~ only (the value is not shown)",
                            shown_name(arg));
    return out;
  }
  // A line break would end the header and start another one in the request.
  if (value.find_first_of(std::string_view("\r\n\0", 3)) != std::string::npos) {
    out.error = fmt::format("'{}': the value holds a line break or NUL (the value is not shown)", name);
    return out;
  }
  out.header.emplace(std::move(name), std::move(value));
  return out;
}

}  // namespace sb::cli
