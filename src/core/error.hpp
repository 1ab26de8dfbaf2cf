#pragma once
// Errors a user can act on (bad input, unreachable server) are thrown as UserError on cold paths and
// printed by main() as one line "servebench: <what>: <where/why>" with the matching exit code.
// Hot paths (per request, per event) never throw: they classify into RequestRecord outcomes.
#include <stdexcept>
#include <string>

#include "core/exit_codes.hpp"

namespace sb {

class UserError : public std::runtime_error {
 public:
  explicit UserError(std::string message, ExitCode code = ExitCode::config_error)
      : std::runtime_error(std::move(message)), code_(code) {}
  ExitCode code() const noexcept { return code_; }

 private:
  ExitCode code_;
};

}  // namespace sb
