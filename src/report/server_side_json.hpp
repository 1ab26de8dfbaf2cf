#pragma once
// The sweep document's server-side objects of a stage (docs/results-format.md §2, in `servebench`):
// `ttft_breakdown_ms` (metrics/ttft_breakdown.hpp) and `prompt_cache` (metrics/prompt_cache.hpp),
// written only for stages whose server reported timings or cached counts.
#include <nlohmann/json.hpp>

#include "metrics/prompt_cache.hpp"
#include "metrics/ttft_breakdown.hpp"

namespace sb::report {

nlohmann::ordered_json ttft_breakdown_json(const TtftBreakdown& b);
nlohmann::ordered_json prompt_cache_json(const PromptCacheShare& c);

}  // namespace sb::report
