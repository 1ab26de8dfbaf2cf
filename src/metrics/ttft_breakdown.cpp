#include "metrics/ttft_breakdown.hpp"

#include <algorithm>

#include "metrics/stats.hpp"

namespace sb {

const char* to_string(TtftSource s) noexcept {
  switch (s) {
    case TtftSource::per_request: return "per_request";
    case TtftSource::metrics_histograms: return "metrics_histograms";
  }
  return "unknown";
}

std::optional<TtftBreakdown> ttft_breakdown(const std::vector<RequestRecord>& records) {
  std::vector<double> rest_ms;
  double client_sum_ms = 0, prefill_sum_ms = 0;
  int ok = 0;
  for (const RequestRecord& r : records) {
    if (!r.was_sent || !r.ok() || r.token_ns.empty()) continue;
    // A non-streaming answer's "TTFT" is its whole latency, decode included: nothing to split.
    if (r.token_source == TokenSource::usage_body) continue;
    ++ok;
    if (!r.server.has_prefill()) continue;
    const double client_ms = ns_to_ms(r.ttft_ns());
    const double prefill_ms = r.server.prefill_ms;
    client_sum_ms += client_ms;
    prefill_sum_ms += prefill_ms;
    rest_ms.push_back(client_ms - prefill_ms);
  }
  if (rest_ms.empty()) return std::nullopt;
  TtftBreakdown b;
  b.source = TtftSource::per_request;
  b.requests = static_cast<int>(rest_ms.size());
  b.covered = static_cast<double>(b.requests) / ok;
  b.client_ttft_mean_ms = client_sum_ms / b.requests;
  b.server_prefill_mean_ms = prefill_sum_ms / b.requests;
  b.rest_mean_ms = b.client_ttft_mean_ms - b.server_prefill_mean_ms;
  std::sort(rest_ms.begin(), rest_ms.end());
  b.rest_median_ms = np_median_sorted(rest_ms);
  return b;
}

std::optional<TtftBreakdown> ttft_breakdown_from_means(double client_ttft_mean_ms, const ServerStageMeans& m) {
  if (!m.prefill_ms) return std::nullopt;
  TtftBreakdown b;
  b.source = TtftSource::metrics_histograms;
  b.requests = m.requests;
  b.client_ttft_mean_ms = client_ttft_mean_ms;
  b.server_queue_mean_ms = m.queue_ms;
  b.server_prefill_mean_ms = *m.prefill_ms;
  b.rest_mean_ms = client_ttft_mean_ms - *m.prefill_ms - m.queue_ms.value_or(0.0);
  return b;
}

}  // namespace sb
