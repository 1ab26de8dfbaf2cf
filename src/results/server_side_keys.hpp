#pragma once
// Reads a sweep stage's server-side objects back (docs/results-format.md §2: `ttft_breakdown_ms`,
// `prompt_cache` in `servebench`), so `servebench report` shows what the run showed. Tolerant:
// absent or null (older documents, servers that report nothing) leaves the stage without them.
// Internal to results/.
#include <nlohmann/json.hpp>

#include "results/model.hpp"

namespace sb::results::detail {

void read_server_side_keys(const nlohmann::json& servebench_block, Stage& s);

}  // namespace sb::results::detail
