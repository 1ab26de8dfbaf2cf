#pragma once
// Per-request sample lists, built one at a time. Every record of a stage is in memory when it is
// summarised; building a metric's list, folding it into statistics and freeing it before the next
// keeps the extra memory at one list, not one per metric (issue 13: memory per request). The
// lists hold what vLLM would list, in record order, so the statistics stay numpy's to the bit.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <iterator>
#include <span>
#include <vector>

#include "metrics/request_record.hpp"
#include "metrics/stats.hpp"

namespace sb {

// A request with latency samples: sent, ok, and with a token event (a record marked ok without one
// cannot have a TTFT; it counts as failed, as vLLM would count it).
inline bool is_success(const RequestRecord& r) noexcept { return r.was_sent && r.ok() && !r.token_ns.empty(); }

// Output tokens of a successful request: the client's count, or one per token event if it had none.
inline int output_len(const RequestRecord& r) noexcept {
  return r.output_tokens > 0 ? r.output_tokens : static_cast<int>(r.token_ns.size());
}

// put(gap_ns) for each gap between consecutive token events of a record with at least one.
template <class Put>
void each_token_gap(const RequestRecord& r, Put put) {
  auto it = r.token_ns.begin();
  Nanos prev = *it;
  for (++it; it != r.token_ns.end(); ++it) {
    const Nanos t = *it;
    put(t - prev);
    prev = t;
  }
}

// `add(r, list)` for each record `keep` accepts; `size` is the list's exact length (growing by
// doubling would hold up to twice the list).
template <class T, class Keep, class Add>
std::vector<T> collect(const std::vector<RequestRecord>& records, std::size_t size, Keep keep, Add add) {
  std::vector<T> xs;
  xs.reserve(size);
  for (const RequestRecord& r : records)
    if (keep(r)) add(r, xs);
  return xs;
}

// Statistics of the pooled inter-token latencies of the records `keep` accepts (each must have a
// token event): one per token event after a request's first, the stage's largest sample (vLLM
// lists them all). While every gap fits in 32 bits of nanoseconds (unless one is over 4.29 s) they
// are computed from the records' token times, replayed, without a list; else from a list of
// seconds, 8 bytes a gap.
template <class Keep>
MetricStats pooled_itl_stats_ms(const std::vector<RequestRecord>& records, Keep keep, std::span<const double> ps) {
  std::size_t gaps = 0;
  bool fits = true;
  for (const RequestRecord& r : records) {
    if (!keep(r)) continue;
    gaps += r.token_ns.size() - 1;
    each_token_gap(r, [&fits](Nanos d) { fits = fits && d >= 0 && d <= static_cast<Nanos>(UINT32_MAX); });
  }
  if (fits) {
    const NsReplay replay = [&records, &keep](const std::function<void(std::span<const std::uint32_t>)>& sink) {
      std::uint32_t run[1024];
      std::size_t used = 0;
      for (const RequestRecord& r : records) {
        if (!keep(r)) continue;
        each_token_gap(r, [&](Nanos d) {
          run[used++] = static_cast<std::uint32_t>(d);
          if (used == std::size(run)) {
            sink(std::span<const std::uint32_t>(run, used));
            used = 0;
          }
        });
      }
      if (used > 0) sink(std::span<const std::uint32_t>(run, used));
    };
    return metric_stats_ms(gaps, replay, ps);
  }
  std::vector<double> s = collect<double>(records, gaps, keep, [](const RequestRecord& r, auto& xs) {
    each_token_gap(r, [&xs](Nanos d) { xs.push_back(ns_to_s(d)); });
  });
  return metric_stats_ms(s, ps);
}

}  // namespace sb
