#include "telemetry/server_sample.hpp"

#include <algorithm>
#include <cmath>
#include <span>

#include "telemetry/server_metric_names.hpp"

namespace sb::telemetry {

namespace {

bool has_family(const PromScrape& s, std::string_view name) { return !name.empty() && s.find(name) != nullptr; }

// vLLM V1 and V0 share the request gauges; the cache gauge tells them apart. Without it (a server
// exposing only some names, such as `servebench sim --cost fixed`), the first set with a match wins.
const ServerMetricNames* resolve_dialect(const PromScrape& s) {
  const ServerMetricNames* fallback = nullptr;
  for (const ServerMetricNames& n : server_metric_names()) {
    if (!has_family(s, n.running) && !has_family(s, n.waiting)) continue;
    if (has_family(s, n.kv_cache_usage)) return &n;
    if (fallback == nullptr) fallback = &n;
  }
  return fallback;
}

// A NaN or infinite sample is no reading (Prometheus' text format allows them; a broken exporter
// sends them): kept, it would turn every delta and mean it enters into NaN, and JSON has no NaN.
std::optional<double> finite_or_none(std::optional<double> v) {
  if (v && !std::isfinite(*v)) return std::nullopt;
  return v;
}

std::optional<double> summed(const PromScrape& s, std::string_view name) {
  if (name.empty()) return std::nullopt;
  return finite_or_none(s.sum(name));
}

std::optional<double> averaged(const PromScrape& s, std::string_view name) {
  if (name.empty()) return std::nullopt;
  double total = 0;
  int n = 0;
  for (const PromSample& p : s.samples) {
    if (p.name != name) continue;
    total += p.value;
    ++n;
  }
  if (n == 0) return std::nullopt;
  return finite_or_none(total / n);
}

// PromScrape::histogram lists every label set's buckets; equal bounds (one per engine) are summed
// here so the cumulative counts stay monotone.
std::optional<PromHistogramData> merged_histogram(const PromScrape& s, std::string_view family) {
  if (family.empty()) return std::nullopt;
  std::optional<PromHistogramData> h = s.histogram(family);
  if (!h || !std::isfinite(h->count) || !std::isfinite(h->sum)) return std::nullopt;
  for (const auto& bucket : h->buckets)
    if (!std::isfinite(bucket.second)) return std::nullopt;
  std::vector<std::pair<double, double>> merged;
  for (const auto& [bound, count] : h->buckets) {
    if (!merged.empty() && merged.back().first == bound)
      merged.back().second += count;
    else
      merged.emplace_back(bound, count);
  }
  h->buckets = std::move(merged);
  return h;
}

}  // namespace

ServerSample read_server_sample(const PromScrape& scrape, Nanos at_ns, bool with_histograms) {
  ServerSample out;
  out.at_ns = at_ns;
  const ServerMetricNames* n = resolve_dialect(scrape);
  if (n == nullptr) {
    out.dialect = "unknown";
    return out;
  }
  out.dialect = n->dialect;
  out.running = summed(scrape, n->running);
  out.waiting = summed(scrape, n->waiting);
  out.kv_cache_usage = averaged(scrape, n->kv_cache_usage);
  out.prefix_hit_rate = averaged(scrape, n->prefix_hit_rate);
  out.preemptions = summed(scrape, n->preemptions);
  out.prefix_hits = summed(scrape, n->prefix_hits);
  out.prefix_queries = summed(scrape, n->prefix_queries);
  out.finished = summed(scrape, n->finished);
  out.prompt_tokens = summed(scrape, n->prompt_tokens);
  out.generation_tokens = summed(scrape, n->generation_tokens);
  if (with_histograms) {
    out.queue_time = merged_histogram(scrape, n->queue_time);
    out.ttft = merged_histogram(scrape, n->ttft);
    out.prefill_time = merged_histogram(scrape, n->prefill_time);
  }
  return out;
}

}  // namespace sb::telemetry
