#pragma once
// Errors a user can act on (bad input, unreachable server) are thrown as UserError on cold paths and
// printed by main() as one line "servebench: <what>: <where/why>" with the matching exit code.
// Hot paths (per request, per event) never throw: they classify into RequestRecord outcomes.
#include <cstdio>
#include <stdexcept>
#include <string>
#include <string_view>

#include "core/exit_codes.hpp"

namespace sb {

// `text` with control bytes written as escapes (\n, \r, \t, \xNN): for a message that quotes input
// (a TOML parser's "saw 'fal\n'"), so the error a user sees stays one line. Messages that list
// several problems on purpose ("3 problems with the options:\n  ...") are built without it.
inline std::string one_line(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '\n') out += "\\n";
    else if (c == '\r') out += "\\r";
    else if (c == '\t') out += "\\t";
    else if (u < 0x20 || u == 0x7f) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", u);
      out += hex;
    } else {
      out += c;
    }
  }
  return out;
}

class UserError : public std::runtime_error {
 public:
  explicit UserError(std::string message, ExitCode code = ExitCode::config_error)
      : std::runtime_error(std::move(message)), code_(code) {}
  ExitCode code() const noexcept { return code_; }

 private:
  ExitCode code_;
};

}  // namespace sb
