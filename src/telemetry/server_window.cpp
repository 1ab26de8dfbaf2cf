#include "telemetry/server_window.hpp"

#include <cmath>
#include <limits>

namespace sb::telemetry {

namespace {

using Getter = std::optional<double> ServerSample::*;

std::optional<GaugeStats> gauge(std::span<const ServerSample> samples, Getter field) {
  GaugeStats g;
  double total = 0;
  for (const ServerSample& s : samples) {
    const std::optional<double>& v = s.*field;
    if (!v) continue;
    total += *v;
    g.max = g.samples == 0 ? *v : std::max(g.max, *v);
    ++g.samples;
  }
  if (g.samples == 0) return std::nullopt;
  g.mean = total / g.samples;
  return g;
}

std::optional<double> increase(const ServerSample& first, const ServerSample& last, Getter field) {
  const std::optional<double>& a = first.*field;
  const std::optional<double>& b = last.*field;
  if (!a || !b || *b < *a) return std::nullopt;  // missing, or reset by a restart
  return *b - *a;
}

using HistGetter = std::optional<PromHistogramData> ServerSample::*;

std::optional<HistogramWindow> histogram_increase(const ServerSample& first, const ServerSample& last,
                                                  HistGetter field) {
  const auto& a = first.*field;
  const auto& b = last.*field;
  if (!a || !b) return std::nullopt;
  return histogram_window(*a, *b);
}

// The share of periodic samples with requests waiting, over those that expose the gauge.
std::optional<double> waiting_share(std::span<const ServerSample> samples) {
  int with = 0, queued = 0;
  for (const ServerSample& s : samples) {
    if (!s.waiting) continue;
    ++with;
    queued += *s.waiting > 0 ? 1 : 0;
  }
  if (with == 0) return std::nullopt;
  return static_cast<double>(queued) / with;
}

}  // namespace

double histogram_quantile(double q, const std::vector<std::pair<double, double>>& cumulative) {
  if (cumulative.empty()) return std::numeric_limits<double>::quiet_NaN();
  const double total = cumulative.back().second;
  if (total <= 0) return std::numeric_limits<double>::quiet_NaN();
  const double rank = q * total;
  double lower = 0, below = 0;
  for (const auto& [upper, count] : cumulative) {
    if (count >= rank) {
      if (std::isinf(upper)) return lower;
      if (count == below) return upper;
      return lower + (upper - lower) * (rank - below) / (count - below);
    }
    lower = upper;
    below = count;
  }
  return lower;
}

std::optional<HistogramWindow> histogram_window(const PromHistogramData& start, const PromHistogramData& end) {
  // A histogram that first appears during the stage counts from zero.
  const bool fresh = start.buckets.empty();
  if (!fresh && start.buckets.size() != end.buckets.size()) return std::nullopt;
  std::vector<std::pair<double, double>> delta;
  delta.reserve(end.buckets.size());
  for (std::size_t i = 0; i < end.buckets.size(); ++i) {
    const double before = fresh ? 0 : start.buckets[i].second;
    if (!fresh && start.buckets[i].first != end.buckets[i].first) return std::nullopt;
    if (end.buckets[i].second < before) return std::nullopt;
    delta.emplace_back(end.buckets[i].first, end.buckets[i].second - before);
  }
  HistogramWindow w;
  w.count = end.count - (fresh ? 0 : start.count);
  if (w.count < 0) return std::nullopt;
  if (w.count == 0) return w;
  w.mean_ms = (end.sum - (fresh ? 0 : start.sum)) / w.count * 1e3;
  w.p50_ms = histogram_quantile(0.5, delta) * 1e3;
  w.p99_ms = histogram_quantile(0.99, delta) * 1e3;
  return w;
}

ServerStageMetrics server_window(std::span<const ServerSample> samples, int failed_scrapes) {
  ServerStageMetrics m;
  m.scrapes = static_cast<int>(samples.size());
  m.failed_scrapes = failed_scrapes;
  if (samples.empty()) {
    m.dialect = "unknown";
    return m;
  }
  m.dialect = std::string(samples.back().dialect);
  // Gauges between the boundaries: those two see the server idle between stages.
  const std::span<const ServerSample> inside = samples.size() > 2 ? samples.subspan(1, samples.size() - 2) : samples;
  m.running = gauge(inside, &ServerSample::running);
  m.waiting = gauge(inside, &ServerSample::waiting);
  m.kv_cache_usage = gauge(inside, &ServerSample::kv_cache_usage);
  m.waiting_share = waiting_share(inside);
  if (samples.size() < 2) return m;
  const ServerSample& first = samples.front();
  const ServerSample& last = samples.back();
  m.preemptions = increase(first, last, &ServerSample::preemptions);
  m.requests_finished = increase(first, last, &ServerSample::finished);
  m.prompt_tokens = increase(first, last, &ServerSample::prompt_tokens);
  m.generation_tokens = increase(first, last, &ServerSample::generation_tokens);
  const std::optional<double> hits = increase(first, last, &ServerSample::prefix_hits);
  const std::optional<double> queries = increase(first, last, &ServerSample::prefix_queries);
  if (hits && queries && *queries > 0)
    m.prefix_cache_hit_rate = *hits / *queries;
  else if (const auto g = gauge(inside, &ServerSample::prefix_hit_rate))
    m.prefix_cache_hit_rate = g->mean;
  m.queue_time = histogram_increase(first, last, &ServerSample::queue_time);
  m.ttft = histogram_increase(first, last, &ServerSample::ttft);
  m.prefill_time = histogram_increase(first, last, &ServerSample::prefill_time);
  return m;
}

QueueSide queue_side(const StageSummary& client, const ServerStageMetrics& server) {
  if (!server.waiting_share) return QueueSide::agree;  // the server does not say
  // waiting_share is over the samples that expose the gauge, which waiting->samples counts.
  const long queued_scrapes = server.waiting ? std::lround(*server.waiting_share * server.waiting->samples) : 0;
  const bool server_queued = *server.waiting_share >= kServerQueuedShare && queued_scrapes >= kServerQueuedMinScrapes;
  const bool server_idle_queue = server.waiting && server.waiting->max <= 0;
  const bool client_queued =
      client.load.open_loop() && (client.client_saturated || client.client_queue_time.median_ms > kClientQueuedMs);
  if (server_queued && !client_queued) return QueueSide::server_queued;
  if (client_queued && server_idle_queue) return QueueSide::client_queued;
  return QueueSide::agree;
}

}  // namespace sb::telemetry
