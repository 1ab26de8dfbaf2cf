#pragma once
// `servebench run` flags (vLLM's names and defaults, as vLLM benchmarks/serve.py; docs/run.md) plus
// an optional TOML file and environment -> one immutable RunConfig. Precedence: flag > config file > environment.
// Values are read here (syntax, flag combinations); their rules are the layers' validate(), whose
// problems by field are reported under the flag that set the field (cli/run_flags.cpp).
// Every problem is collected and reported at once (one UserError, one line per problem).
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "pipeline/run_config.hpp"

namespace sb::cli {

using pipeline::RunConfig;

// Environment lookup, injectable for tests. Returns nullopt when the variable is unset.
using EnvLookup = std::function<std::optional<std::string>(const std::string&)>;
EnvLookup process_env();

struct ParseInput {
  std::vector<std::string> args;   // after the command name
  EnvLookup env = process_env();
  std::string cwd = ".";           // where ./servebench.toml is looked for
};

// Returns nullopt when --help was printed (exit 0). Throws sb::UserError (config_error) listing
// every problem, one per line.
std::optional<RunConfig> parse_run_options(const ParseInput& in);

}  // namespace sb::cli
