#include "report/server_side_json.hpp"

namespace sb::report {

using nlohmann::ordered_json;

namespace {

ordered_json number_or_null(const std::optional<double>& v) { return v ? ordered_json(*v) : ordered_json(nullptr); }

}  // namespace

ordered_json ttft_breakdown_json(const TtftBreakdown& b) {
  return ordered_json{{"source", to_string(b.source)},
                      {"requests", b.requests},
                      {"covered", b.covered},
                      {"client_ttft_mean", b.client_ttft_mean_ms},
                      {"server_queue_mean", number_or_null(b.server_queue_mean_ms)},
                      {"server_prefill_mean", b.server_prefill_mean_ms},
                      {"rest_mean", b.rest_mean_ms},
                      {"rest_median", number_or_null(b.rest_median_ms)}};
}

ordered_json prompt_cache_json(const PromptCacheShare& c) {
  return ordered_json{{"requests", c.requests},
                      {"prompt_tokens", c.prompt_tokens},
                      {"cached_tokens", c.cached_tokens},
                      {"hit_share", c.hit_share},
                      {"mostly_cached", c.mostly_cached}};
}

}  // namespace sb::report
