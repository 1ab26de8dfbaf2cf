#include "metrics/prompt_cache.hpp"

#include <algorithm>

namespace sb {

std::optional<PromptCacheShare> prompt_cache_share(const std::vector<RequestRecord>& records,
                                                   double mostly_cached_share) {
  PromptCacheShare c;
  for (const RequestRecord& r : records) {
    if (!r.was_sent || !r.ok() || r.token_ns.empty() || r.cached_prompt_tokens < 0) continue;
    ++c.requests;
    const int prompt = std::max(r.prompt_tokens, 0);
    c.prompt_tokens += prompt;
    // A server may count the cached tokens of a prompt it then reports shorter; never above 100%.
    c.cached_tokens += std::min(r.cached_prompt_tokens, prompt);
  }
  if (c.requests == 0) return std::nullopt;
  c.hit_share = c.prompt_tokens > 0 ? static_cast<double>(c.cached_tokens) / static_cast<double>(c.prompt_tokens) : 0;
  c.mostly_cached = c.hit_share > mostly_cached_share;
  return c;
}

}  // namespace sb
