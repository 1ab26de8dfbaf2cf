#pragma once
// The table of `servebench run` flags: name (canonical, dashes), arity and help. Shared by the
// command-line parser and the config-file reader so both accept exactly the same names.
#include <span>
#include <string_view>

namespace sb::cli {

enum class FlagKind { value, list, flag };

struct FlagSpec {
  std::string_view name;   // without "--"; the underscore spelling is accepted too
  FlagKind kind;
  std::string_view help;
};

std::span<const FlagSpec> run_flags();
const FlagSpec* find_run_flag(std::string_view canonical_name);

}  // namespace sb::cli
