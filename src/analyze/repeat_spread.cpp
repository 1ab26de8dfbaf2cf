#include "analyze/repeat_spread.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace sb::analyze {

namespace {

Spread spread_of(const std::vector<double>& xs) {
  Spread s;
  if (xs.empty()) return s;
  const auto [lo, hi] = std::minmax_element(xs.begin(), xs.end());
  s.min = *lo;
  s.max = *hi;
  double sum = 0;
  for (double x : xs) sum += x;
  const double mean = sum / static_cast<double>(xs.size());
  double sq = 0;
  for (double x : xs) sq += (x - mean) * (x - mean);
  s.cv = mean != 0 ? std::sqrt(sq / static_cast<double>(xs.size())) / std::abs(mean) : 0;
  s.range = s.min > 0 ? (s.max - s.min) / s.min : 0;
  return s;
}

}  // namespace

std::vector<RepeatSpread> repeat_spread(const std::vector<StageSummary>& stages, double range_limit) {
  std::map<std::size_t, std::vector<const StageSummary*>> by_stage;
  for (const StageSummary& s : stages) by_stage[s.stage_index].push_back(&s);
  std::vector<RepeatSpread> out;
  for (const auto& [index, members] : by_stage) {
    RepeatSpread r;
    r.stage_index = index;
    r.load = members.front()->load;
    r.repeats = static_cast<int>(members.size());
    std::vector<double> thr, ttft, steady_thr, steady_ttft;
    for (const StageSummary* s : members) {
      thr.push_back(s->request_throughput);
      ttft.push_back(s->ttft.percentile_ms(99));
      if (s->steady && s->steady->window_s > 0) {
        steady_thr.push_back(s->steady->request_throughput);
        steady_ttft.push_back(s->steady->ttft.percentile_ms(99));
      }
    }
    r.request_throughput = spread_of(thr);
    r.ttft_p99_ms = spread_of(ttft);
    r.steady_request_throughput = spread_of(steady_thr);
    r.steady_ttft_p99_ms = spread_of(steady_ttft);
    r.differs = r.repeats > 1 && (r.request_throughput.range > range_limit || r.ttft_p99_ms.range > range_limit);
    out.push_back(r);
  }
  return out;
}

}  // namespace sb::analyze
