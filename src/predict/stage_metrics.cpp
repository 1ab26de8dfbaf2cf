#include "predict/stage_metrics.hpp"

#include <algorithm>

namespace sb::predict {
namespace {

// numpy's default (linear) median of an unsorted sample; 0 when empty.
double median_of(std::vector<double>& v) {
  if (v.empty()) return 0.0;
  const std::size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  const double hi = v[mid];
  if (v.size() % 2 == 1) return hi;
  const double lo = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid));
  return (lo + hi) / 2.0;
}

}  // namespace

StageMetrics stage_metrics(const std::vector<RequestRecord>& records, Nanos duration_ns) {
  StageMetrics m;
  std::vector<double> ttft_ms, tpot_ms;
  double tokens = 0;
  for (const RequestRecord& r : records) {
    if (!r.ok() || r.token_ns.empty()) continue;
    tokens += r.output_tokens;
    ttft_ms.push_back(static_cast<double>(r.ttft_ns()) / 1e6);
    if (r.output_tokens > 1)
      tpot_ms.push_back(static_cast<double>(r.latency_ns() - r.ttft_ns()) / 1e6 / (r.output_tokens - 1));
  }
  m.output_throughput = duration_ns > 0 ? tokens / (static_cast<double>(duration_ns) / 1e9) : 0.0;
  m.ttft_p50_ms = median_of(ttft_ms);
  m.tpot_p50_ms = median_of(tpot_ms);
  return m;
}

}  // namespace sb::predict
