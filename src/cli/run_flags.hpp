#pragma once
// The table of `servebench run` flags: name (canonical, dashes), arity and help. Shared by the
// command-line parser and the config-file reader so both accept exactly the same names.
#include <span>
#include <string_view>
#include <vector>

namespace sb::cli {

// optional_value: `--flag` alone or `--flag VALUE` (--scrape-metrics [URL]).
enum class FlagKind { value, list, flag, optional_value };

struct FlagSpec {
  std::string_view name;   // without "--"; the underscore spelling is accepted too
  FlagKind kind;
  std::string_view help;
  std::string_view fields = {};  // the RunConfig fields it sets, space-separated ("dataset.num_prompts")
};

std::span<const FlagSpec> run_flags();
const FlagSpec* find_run_flag(std::string_view canonical_name);
// The flags that set a RunConfig field (as validate() names it), in table order; empty if none.
std::vector<const FlagSpec*> flags_for_field(std::string_view field);

}  // namespace sb::cli
