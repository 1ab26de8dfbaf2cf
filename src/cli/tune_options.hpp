#pragma once
// `servebench tune` flags -> orchestrate::TuneParams (docs/tune.md). Tune's own flags are taken
// out of the command line; everything else is `servebench run`'s and goes through the same parser
// (cli/run_options.hpp), so every run flag means in tune what it means in run. The flags that name
// the target and the outputs (--base-url, --port, --output-json, ...) are tune's to set per
// configuration and are refused. Every problem is reported at once (exit 2).
#include <optional>
#include <string>
#include <vector>

#include "analyze/capacity.hpp"
#include "cli/run_options.hpp"
#include "orchestrate/tune_loop.hpp"

namespace sb::cli {

struct TuneOptions {
  orchestrate::TuneParams params;
  std::vector<analyze::Slo> slos;
  int gpus_per_config = 1;
};

// nullopt when --help was printed. Throws sb::UserError (config_error) listing every problem.
std::optional<TuneOptions> parse_tune_options(const ParseInput& in);

}  // namespace sb::cli
