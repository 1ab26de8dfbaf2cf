#pragma once
// The server command and the profiler wrapper as the user typed them, turned into an argv
// (sans-I/O). Split like a POSIX shell splits words ('single', "double" with \" \\ \$ \`, and a
// backslash outside quotes), with no expansion at all, and run directly (posix_spawnp): no shell
// between tune and the server, so the signals of the stop reach the server itself.
// Placeholders `{port}`, `{dir}`, `{name}` and `{KEY}` of each grid key are filled in per word,
// after the split: a value with spaces stays one argument, and a word that was only placeholders
// whose values are empty disappears (so a grid value can be "no flag at all"). A placeholder is
// `{` NAME `}` with NAME of letters, digits and `_`; any other brace is literal (vLLM's JSON flags,
// '{"temperature": 0}', pass through as typed), and `{{` / `}}` are a literal brace.
// Only a command that needs a shell (an unquoted | & ; < > ( ) $ ` or a line break: pipes,
// redirections, variables, `cd x && ...`) runs as `/bin/sh -c TEXT`, with each value substituted
// shell-quoted when it holds anything but [A-Za-z0-9_./:=,+@%-].
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace sb::orchestrate {

using Placeholders = std::map<std::string, std::string>;  // name (without braces) -> value

struct SplitCommand {
  std::vector<std::string> words;
  bool needs_shell = false;
  std::string error;  // non-empty: unterminated quote or trailing backslash (the message says which)
};

SplitCommand split_command(std::string_view text);

// The placeholder names in `text`, in order of appearance, repeated as often as they appear.
std::vector<std::string> scan_placeholders(std::string_view text);

// `text` with every placeholder replaced; names not in `values` are left as they were (the caller
// checked them with scan_placeholders). `shell_quote_values`: values are quoted for /bin/sh.
std::string fill_placeholders(std::string_view text, const Placeholders& values, bool shell_quote_values);

// 'it'\''s' quoting for /bin/sh; text of only safe characters is returned unquoted.
std::string shell_quote(std::string_view text);

struct LaunchCommand {
  std::vector<std::string> argv;
  bool via_shell = false;  // argv is {"/bin/sh", "-c", TEXT}
};

// The wrapper (may be empty) in front of the server command, both filled in. Both must split
// without error (check with split_command first).
LaunchCommand build_launch_command(std::string_view wrapper, std::string_view server, const Placeholders& values);

// argv as one line a user can paste into a shell (for the log and the records).
std::string command_text(const std::vector<std::string>& argv);

}  // namespace sb::orchestrate
