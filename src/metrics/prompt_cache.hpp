#pragma once
// Per stage, the share of prompt tokens the server served from its prefix cache, from the cached
// counts it reported per request (llama.cpp cache_n, usage.prompt_tokens_details.cached_tokens).
// A stage served mostly from cache measures the cache, not prefill: its TTFT and the knee it
// gives say little about prompts the server has not seen.
#include <cstdint>
#include <optional>
#include <vector>

#include "metrics/request_record.hpp"

namespace sb {

struct PromptCacheShare {
  int requests = 0;                  // successful requests that reported a cached count
  std::int64_t prompt_tokens = 0;    // Σ prompt tokens of those requests
  std::int64_t cached_tokens = 0;    // Σ of their cached prompt tokens
  double hit_share = 0;              // cached / prompt tokens (0 when no prompt tokens)
  bool mostly_cached = false;        // hit_share above the threshold
};

// Share above which a stage counts as served mostly from cache.
inline constexpr double kMostlyCachedShare = 0.5;

// nullopt when no successful request reported a cached count (the engine does not say).
std::optional<PromptCacheShare> prompt_cache_share(const std::vector<RequestRecord>& records,
                                                   double mostly_cached_share = kMostlyCachedShare);

}  // namespace sb
