#include "metrics/steady_window.hpp"

#include <algorithm>
#include <limits>
#include <utility>

#include "metrics/stats.hpp"

namespace sb {

namespace {

struct Span {
  Nanos sent_ns = 0, done_ns = 0;
};

// In-flight changes over time: +1 at a send, -1 at a done; at equal times the done first, so a slot
// handed straight on never counts twice.
std::vector<std::pair<Nanos, int>> in_flight_steps(const std::vector<Span>& spans) {
  std::vector<std::pair<Nanos, int>> ev;
  ev.reserve(spans.size() * 2);
  for (const Span& s : spans) {
    ev.emplace_back(s.sent_ns, +1);
    ev.emplace_back(s.done_ns, -1);
  }
  std::sort(ev.begin(), ev.end());
  return ev;
}

// First instant at which `target` requests are in flight, or nullopt.
std::optional<Nanos> first_held(const std::vector<std::pair<Nanos, int>>& ev, int target) {
  int n = 0;
  for (const auto& [t, d] : ev) {
    n += d;
    if (n >= target) return t;
  }
  return std::nullopt;
}

// Time-weighted integrals over [a, b] of the in-flight count and of the time at >= target.
struct Occupancy {
  double area_ns = 0, held_ns = 0;
};

Occupancy occupancy(const std::vector<std::pair<Nanos, int>>& ev, Nanos a, Nanos b, int target) {
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
  for (const auto& [t, d] : ev) {
    if (t >= b) break;
    add(t);
    n += d;
  }
  add(b);
  return o;
}

bool succeeded(const RequestRecord& r) { return r.was_sent && r.ok() && !r.token_ns.empty(); }

int output_len_of(const RequestRecord& r) {
  return r.output_tokens > 0 ? r.output_tokens : static_cast<int>(r.token_ns.size());
}

double spread(const std::vector<double>& xs) {
  if (xs.size() < 2) return 0;
  const auto [lo, hi] = std::minmax_element(xs.begin(), xs.end());
  double sum = 0;
  for (double x : xs) sum += x;
  const double mean = sum / static_cast<double>(xs.size());
  return mean > 0 ? (*hi - *lo) / mean : 0;
}

// Latency samples (seconds) of the successful requests sent in [a, b].
struct WindowSamples {
  std::vector<double> ttft, tpot, itl, e2el;
};

WindowSamples latency_samples(const std::vector<RequestRecord>& records, Nanos a, Nanos b) {
  WindowSamples x;
  // Exact sizes first: these lists are the stage's largest temporaries (8 bytes per token event).
  std::size_t n = 0, gaps = 0;
  for (const RequestRecord& r : records) {
    if (!succeeded(r) || r.sent_ns < a || r.sent_ns > b) continue;
    ++n;
    gaps += r.token_ns.size() - 1;
  }
  x.ttft.reserve(n);
  x.e2el.reserve(n);
  x.tpot.reserve(n);
  x.itl.reserve(gaps);
  for (const RequestRecord& r : records) {
    if (!succeeded(r) || r.sent_ns < a || r.sent_ns > b) continue;
    const double ttft_s = ns_to_s(r.ttft_ns()), e2el_s = ns_to_s(r.latency_ns());
    const int out = output_len_of(r);
    x.ttft.push_back(ttft_s);
    x.e2el.push_back(e2el_s);
    if (out > 1) x.tpot.push_back((e2el_s - ttft_s) / (out - 1));  // vLLM's TPOT formula
    for (std::size_t i = 1; i < r.token_ns.size(); ++i) x.itl.push_back(ns_to_s(r.token_ns[i] - r.token_ns[i - 1]));
  }
  return x;
}

// Output tokens inside [a, b]: each request's count spread evenly over its token events.
double tokens_in(const std::vector<RequestRecord>& records, Nanos a, Nanos b) {
  double total = 0;
  for (const RequestRecord& r : records) {
    if (!succeeded(r)) continue;
    std::size_t inside = 0;
    for (Nanos t : r.token_ns) inside += (t >= a && t <= b) ? 1 : 0;
    total += static_cast<double>(output_len_of(r)) * static_cast<double>(inside) / static_cast<double>(r.token_ns.size());
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
      if (!succeeded(r)) continue;
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
                                                     const std::vector<std::pair<Nanos, int>>& ev,
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
  std::vector<Span> spans;
  spans.reserve(records.size());
  for (const RequestRecord& r : records)
    if (r.was_sent) spans.push_back({r.sent_ns, std::max(r.done_ns, r.sent_ns)});
  const int sent = static_cast<int>(spans.size());
  if (p.load.open_loop() && p.load.request_rate > 0) s.rate_fraction = whole_stage_throughput / p.load.request_rate;
  if (!p.load.open_loop()) s.target_in_flight = std::min(p.load.max_concurrency.value_or(sent), sent);
  auto ev = in_flight_steps(spans);
  std::vector<Span>().swap(spans);
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
    if (r.done_ns > a && r.done_ns <= b) ++s.completed, ok_done += succeeded(r) ? 1 : 0;
    if (r.sent_ns >= a && r.sent_ns <= b) ++s.started, busy_ns += static_cast<double>(std::max<Nanos>(r.done_ns - r.sent_ns, 0));
  }
  s.request_throughput = ok_done / s.window_s;
  s.output_throughput = tokens_in(records, a, b) / s.window_s;
  if (p.load.open_loop() && p.load.request_rate > 0) s.steady_rate_fraction = s.request_throughput / p.load.request_rate;
  // Little's law L = lambda W, every outcome counted, as in-flight counts every sent request.
  const double lambda_per_ns = s.completed / len_ns, mean_w_ns = s.started > 0 ? busy_ns / s.started : 0;
  s.littles_law_ratio = s.mean_in_flight > 0 ? lambda_per_ns * mean_w_ns / s.mean_in_flight : 0;
  decltype(ev)().swap(ev);  // freed before the latency samples, the larger temporaries, are made

  WindowSamples x = latency_samples(records, a, b);
  s.ttft = metric_stats_ms(x.ttft, p.percentiles);
  s.tpot = metric_stats_ms(x.tpot, p.percentiles);
  s.itl = metric_stats_ms(x.itl, p.percentiles);
  s.e2el = metric_stats_ms(x.e2el, p.percentiles);
  fill_sub_windows(records, a, b, p.sub_windows, s);
  return s;
}

}  // namespace sb
