#include "metrics/steady_window.hpp"

#include <algorithm>
#include <limits>
#include <span>
#include <utility>

#include "metrics/peaks.hpp"
#include "metrics/sample_lists.hpp"
#include "metrics/stats.hpp"

namespace sb {

namespace {

// In-flight changes over time of every sent request (metrics/peaks.hpp).
InFlightSteps in_flight_steps(const std::vector<RequestRecord>& records) {
  InFlightSteps steps;
  std::size_t sent = 0;
  for (const RequestRecord& r : records) sent += r.was_sent ? 1 : 0;
  steps.reserve(sent);
  for (const RequestRecord& r : records)
    if (r.was_sent) steps.add(r.sent_ns, std::max(r.done_ns, r.sent_ns));
  steps.sort();
  return steps;
}

// First instant at which `target` requests are in flight, or nullopt.
std::optional<Nanos> first_held(const InFlightSteps& ev, int target) {
  int n = 0;
  std::optional<Nanos> at;
  ev.visit([&](Nanos t, int d) {
    n += d;
    if (n >= target) at = t;
    return at.has_value();
  });
  return at;
}

// Time-weighted integrals over [a, b] of the in-flight count and of the time at >= target.
struct Occupancy {
  double area_ns = 0, held_ns = 0;
};

Occupancy occupancy(const InFlightSteps& ev, Nanos a, Nanos b, int target) {
  Occupancy o;
  int n = 0;
  Nanos cursor = a;  // integrated up to here
  const auto add = [&](Nanos to) {
    if (to <= cursor) return;
    const double dt = static_cast<double>(to - cursor);
    o.area_ns += n * dt;
    if (target > 0 && n >= target) o.held_ns += dt;
    cursor = to;
  };
  ev.visit([&](Nanos t, int d) {
    if (t >= b) return true;
    add(t);
    n += d;
    return false;
  });
  add(b);
  return o;
}

double spread(const std::vector<double>& xs) {
  if (xs.size() < 2) return 0;
  const auto [lo, hi] = std::minmax_element(xs.begin(), xs.end());
  double sum = 0;
  for (double x : xs) sum += x;
  const double mean = sum / static_cast<double>(xs.size());
  return mean > 0 ? (*hi - *lo) / mean : 0;
}

// Latency statistics of the successful requests sent in [a, b], one sample list at a time.
void fill_latencies(const std::vector<RequestRecord>& records, Nanos a, Nanos b, std::span<const double> ps, SteadyState& s) {
  const auto in_window = [a, b](const RequestRecord& r) { return is_success(r) && r.sent_ns >= a && r.sent_ns <= b; };
  std::size_t n = 0;
  for (const RequestRecord& r : records) n += in_window(r) ? 1 : 0;
  const auto stats = [&](auto add) {
    std::vector<double> xs = collect<double>(records, n, in_window, add);
    return metric_stats_ms(xs, ps);
  };
  s.ttft = stats([](const RequestRecord& r, auto& v) { v.push_back(ns_to_s(r.ttft_ns())); });
  s.tpot = stats([](const RequestRecord& r, auto& v) {
    const double ttft_s = ns_to_s(r.ttft_ns()), e2el_s = ns_to_s(r.latency_ns());
    const int out = output_len(r);
    if (out > 1) v.push_back((e2el_s - ttft_s) / (out - 1));  // vLLM's TPOT formula
  });
  s.itl = pooled_itl_stats_ms(records, in_window, ps);
  s.e2el = stats([](const RequestRecord& r, auto& v) { v.push_back(ns_to_s(r.latency_ns())); });
}

// Output tokens inside [a, b]: each request's count spread evenly over its token events.
double tokens_in(const std::vector<RequestRecord>& records, Nanos a, Nanos b) {
  double total = 0;
  for (const RequestRecord& r : records) {
    if (!is_success(r)) continue;
    std::size_t inside = 0;
    for (Nanos t : r.token_ns) inside += (t >= a && t <= b) ? 1 : 0;
    total += static_cast<double>(output_len(r)) * static_cast<double>(inside) / static_cast<double>(r.token_ns.size());
  }
  return total;
}

void fill_sub_windows(const std::vector<RequestRecord>& records, Nanos a, Nanos b, int k, SteadyState& s) {
  k = std::max(2, k);
  const double len_ns = static_cast<double>(b - a) / k;
  int min_completed = std::numeric_limits<int>::max();
  for (int i = 0; i < k; ++i) {
    const Nanos lo = a + static_cast<Nanos>(len_ns * i), hi = i + 1 == k ? b : a + static_cast<Nanos>(len_ns * (i + 1));
    int done = 0;
    std::vector<double> ttft;
    for (const RequestRecord& r : records) {
      if (!is_success(r)) continue;
      if (r.done_ns > lo && r.done_ns <= hi) ++done;
      // The last part includes its end, as the window does.
      if (r.sent_ns >= lo && (r.sent_ns < hi || (i + 1 == k && r.sent_ns == hi))) ttft.push_back(ns_to_s(r.ttft_ns()) * 1000);
    }
    std::sort(ttft.begin(), ttft.end());
    s.sub_request_throughput.push_back(hi > lo ? done / ns_to_s(hi - lo) : 0);
    s.sub_ttft_median_ms.push_back(np_median_sorted(ttft));
    min_completed = std::min(min_completed, done);
  }
  s.sub_min_completed = min_completed;
  s.throughput_spread = spread(s.sub_request_throughput);
  s.ttft_spread = spread(s.sub_ttft_median_ms);
}

// Closed loop: [target first in flight, issuing stopped]; open loop: [first, last scheduled arrival].
std::optional<std::pair<Nanos, Nanos>> window_bounds(const std::vector<RequestRecord>& records,
                                                     const InFlightSteps& ev,
                                                     const SteadyParams& p, int target) {
  Nanos first_intended = std::numeric_limits<Nanos>::max(), last_intended = 0, last_sent = 0;
  for (const RequestRecord& r : records) {
    if (!r.was_sent) continue;
    first_intended = std::min(first_intended, r.intended_ns);
    last_intended = std::max(last_intended, r.intended_ns);
    last_sent = std::max(last_sent, r.sent_ns);
  }
  if (p.load.open_loop()) {
    if (last_intended <= first_intended) return std::nullopt;
    return std::pair{first_intended, last_intended};
  }
  const std::optional<Nanos> start = first_held(ev, target);
  const Nanos end = p.issue_end_ns >= 0 ? p.issue_end_ns : last_sent;
  if (!start || end <= *start) return std::nullopt;
  return std::pair{*start, end};
}

}  // namespace

SteadyState steady_window(const std::vector<RequestRecord>& records, const SteadyParams& p,
                          double whole_stage_throughput) {
  SteadyState s;
  s.duration_bounded = p.duration_bounded;
  int sent = 0;
  for (const RequestRecord& r : records) sent += r.was_sent ? 1 : 0;
  if (p.load.open_loop() && p.load.request_rate > 0) s.rate_fraction = whole_stage_throughput / p.load.request_rate;
  if (!p.load.open_loop()) s.target_in_flight = std::min(p.load.max_concurrency.value_or(sent), sent);
  InFlightSteps ev = in_flight_steps(records);
  const auto bounds = sent >= 2 ? window_bounds(records, ev, p, s.target_in_flight) : std::nullopt;
  if (!bounds) return s;
  const auto [a, b] = *bounds;
  const double len_ns = static_cast<double>(b - a);
  s.window_start_s = ns_to_s(a);
  s.window_s = ns_to_s(b - a);
  const Occupancy occ = occupancy(ev, a, b, s.target_in_flight);
  s.mean_in_flight = occ.area_ns / len_ns;
  if (!p.load.open_loop()) s.held_fraction = occ.held_ns / len_ns;

  int ok_done = 0;
  double busy_ns = 0;
  for (const RequestRecord& r : records) {
    if (!r.was_sent) continue;
    if (r.done_ns > a && r.done_ns <= b) ++s.completed, ok_done += is_success(r) ? 1 : 0;
    if (r.sent_ns >= a && r.sent_ns <= b) ++s.started, busy_ns += static_cast<double>(std::max<Nanos>(r.done_ns - r.sent_ns, 0));
  }
  s.request_throughput = ok_done / s.window_s;
  s.output_throughput = tokens_in(records, a, b) / s.window_s;
  if (p.load.open_loop() && p.load.request_rate > 0) s.steady_rate_fraction = s.request_throughput / p.load.request_rate;
  // Little's law L = lambda W, every outcome counted, as in-flight counts every sent request.
  const double lambda_per_ns = s.completed / len_ns, mean_w_ns = s.started > 0 ? busy_ns / s.started : 0;
  s.littles_law_ratio = s.mean_in_flight > 0 ? lambda_per_ns * mean_w_ns / s.mean_in_flight : 0;
  ev = {};  // freed before the latency samples, the larger temporaries, are made

  fill_latencies(records, a, b, p.percentiles, s);
  fill_sub_windows(records, a, b, p.sub_windows, s);
  return s;
}

}  // namespace sb
