#pragma once
// The resolved run configuration as the `config` object of the sweep document
// (docs/results-format.md §1). Secrets are redacted: the API key never appears, header values
// are replaced by "<redacted>".
#include <string>

#include "pipeline/run_config.hpp"

namespace sb::pipeline {

// JSON object text, keys in the documented order. model_id: the resolved model (after preflight).
std::string redacted_config_json(const RunConfig& c, const std::string& model_id);

}  // namespace sb::pipeline
