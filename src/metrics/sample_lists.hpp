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
    Nanos prev = r.token_ns.front();
    for (const Nanos t : r.token_ns) {
      fits = fits && t - prev >= 0 && t - prev <= static_cast<Nanos>(UINT32_MAX);
      prev = t;
    }
  }
  if (fits) {
    const NsReplay replay = [&records, &keep](const std::function<void(std::span<const std::uint32_t>)>& sink) {
      std::uint32_t run[1024];
      std::size_t used = 0;
      for (const RequestRecord& r : records) {
        if (!keep(r)) continue;
        Nanos prev = r.token_ns.front();
        bool first = true;
        for (const Nanos t : r.token_ns) {
          if (!first) {
            run[used++] = static_cast<std::uint32_t>(t - prev);
            if (used == std::size(run)) {
              sink(std::span<const std::uint32_t>(run, used));
              used = 0;
            }
          }
          first = false;
          prev = t;
        }
      }
      if (used > 0) sink(std::span<const std::uint32_t>(run, used));
    };
    return metric_stats_ms(gaps, replay, ps);
  }
  std::vector<double> s = collect<double>(records, gaps, keep, [](const RequestRecord& r, auto& xs) {
    for (std::size_t i = 1; i < r.token_ns.size(); ++i) xs.push_back(ns_to_s(r.token_ns[i] - r.token_ns[i - 1]));
  });
  return metric_stats_ms(s, ps);
}

}  // namespace sb
