#include "results/server_side_keys.hpp"

#include "results/json_fields.hpp"

namespace sb::results::detail {
namespace {

using nlohmann::json;

std::optional<double> optional_number(const json& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

TtftBreakdown read_breakdown(const json& j) {
  TtftBreakdown b;
  b.source = j.value("source", std::string()) == to_string(TtftSource::metrics_histograms) ? TtftSource::metrics_histograms
                                                                                          : TtftSource::per_request;
  b.requests = static_cast<int>(number_or(j, "requests", 0));
  b.covered = number_or(j, "covered", 0);
  b.client_ttft_mean_ms = number_or(j, "client_ttft_mean", 0);
  b.server_queue_mean_ms = optional_number(j, "server_queue_mean");
  b.server_prefill_mean_ms = number_or(j, "server_prefill_mean", 0);
  b.rest_mean_ms = number_or(j, "rest_mean", 0);
  b.rest_median_ms = optional_number(j, "rest_median");
  return b;
}

PromptCacheShare read_cache(const json& j) {
  PromptCacheShare c;
  c.requests = static_cast<int>(number_or(j, "requests", 0));
  c.prompt_tokens = static_cast<std::int64_t>(number_or(j, "prompt_tokens", 0));
  c.cached_tokens = static_cast<std::int64_t>(number_or(j, "cached_tokens", 0));
  c.hit_share = number_or(j, "hit_share", 0);
  c.mostly_cached = j.value("mostly_cached", false);
  return c;
}

}  // namespace

void read_server_side_keys(const json& servebench_block, Stage& s) {
  if (auto it = servebench_block.find("ttft_breakdown_ms"); it != servebench_block.end() && it->is_object())
    s.ttft_breakdown = read_breakdown(*it);
  if (auto it = servebench_block.find("prompt_cache"); it != servebench_block.end() && it->is_object())
    s.prompt_cache = read_cache(*it);
}

}  // namespace sb::results::detail
