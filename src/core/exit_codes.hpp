#pragma once
// Every exit status servebench can return, in one place (documented in docs/exit-codes.md).

namespace sb {

enum class ExitCode : int {
  ok = 0,                 // the command completed
  internal_error = 1,     // a bug or an unexpected system failure
  config_error = 2,       // bad flag, bad config file, unreadable or malformed input file
  unreachable = 3,        // preflight failed: connection refused, DNS, TLS, 401/403, unknown model, a rejected body
  too_many_failures = 4,  // --max-failure-ratio exceeded
  gate_failed = 5,        // compare --fail-if rule violated
  write_failed = 6,       // an output file could not be written (disk full, I/O error): results lost
  server_failed = 7,      // run: the server answered but failed the test request on every try (5xx, cut stream)
  aborted = 130,          // Ctrl-C / SIGTERM: dispatch stopped, outputs written and marked aborted
};

constexpr int to_int(ExitCode c) noexcept { return static_cast<int>(c); }

}  // namespace sb
