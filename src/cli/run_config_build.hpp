#pragma once
// Raw option values -> typed RunConfig with vLLM's defaults, cross-flag checks included. Errors go
// to the reader's error list; the caller reports them all at once.
#include "cli/option_reader.hpp"
#include "cli/run_options.hpp"

namespace sb::cli {

RunConfig build_run_config(const OptionReader& r, const EnvLookup& env);

}  // namespace sb::cli
