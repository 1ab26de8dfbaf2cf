#include "metrics/summarize.hpp"

#include <algorithm>
#include <span>
#include <set>
#include <string_view>

#include "metrics/client_use.hpp"
#include "metrics/output_check.hpp"
#include "metrics/prompt_cache.hpp"
#include "metrics/peaks.hpp"
#include "metrics/sample_lists.hpp"
#include "metrics/stats.hpp"
#include "metrics/ttft_breakdown.hpp"

namespace sb {

namespace {

std::vector<double> percentile_set(const std::vector<double>& requested) {
  // The sweep document always carries p50/p90/p95/p99 besides --metric-percentiles.
  std::set<double> ps(requested.begin(), requested.end());
  ps.insert({50, 90, 95, 99});
  return {ps.begin(), ps.end()};
}

const char* source_category(const RequestRecord& r) noexcept {
  if (r.output_tokens <= 0) return "event_count";
  switch (r.token_source) {
    case TokenSource::usage_chunk:
    case TokenSource::usage_in_choice:
    case TokenSource::usage_body: return "usage";
    case TokenSource::tokenizer: return "tokenizer";
    case TokenSource::event_count: return "event_count";
    case TokenSource::none: break;
  }
  return "none";
}

void add_error(StageSummary& s, const RequestRecord& r) {
  // An "ok" stream without a token event is what vLLM calls a failure without TTFT.
  ErrorCategory& cat = s.errors[r.ok() ? to_string(Outcome::no_tokens) : to_string(r.outcome)];
  ++cat.count;
  if (cat.sample.empty()) cat.sample = r.error;
  if (r.outcome == Outcome::http_error && r.http_status > 0) ++cat.http_statuses[r.http_status];
}

// Goodput (vllm/benchmarks/serve.py, --goodput): good iff every configured SLO holds; compared in seconds like vLLM.
bool is_good(const std::map<std::string, double>& slo_ms, double ttft_s, double tpot_s, double e2el_s) {
  for (const auto& [key, ms] : slo_ms) {
    const double limit_s = ms / 1000;
    if (key == "ttft" && ttft_s > limit_s) return false;
    if (key == "tpot" && tpot_s > limit_s) return false;
    if (key == "e2el" && e2el_s > limit_s) return false;
  }
  return true;
}

int prompt_len(const RequestRecord& r) noexcept {
  return r.prompt_tokens >= 0 ? r.prompt_tokens : std::max(r.dataset_prompt_tokens, 0);
}

// A successful request's latencies in seconds, computed as vLLM computes them.
struct Latencies {
  double ttft_s = 0, e2el_s = 0, tpot_s = 0, queue_s = 0;
  int out = 0;
};

Latencies latencies_of(const RequestRecord& r) noexcept {
  Latencies l;
  l.out = output_len(r);
  l.ttft_s = ns_to_s(r.ttft_ns());
  l.e2el_s = ns_to_s(r.latency_ns());
  l.queue_s = ns_to_s(r.queue_ns());
  // vLLM subtracts the two float latencies; doing the same keeps the last bits equal.
  l.tpot_s = l.out > 1 ? (l.e2el_s - l.ttft_s) / (l.out - 1) : 0.0;
  return l;
}

// Categories are string literals, so equal categories have equal text.
const char* merge_source(const char* so_far, const char* next) noexcept {
  if (so_far == nullptr || std::string_view(so_far) == next) return next;
  return "mixed";
}

// Counters and errors over every sent request. The samples are collected one metric at a time
// afterwards (metrics/sample_lists.hpp), so that only one list exists beside the records.
void fold_records(const std::vector<RequestRecord>& records, const SummarizeParams& p, StageSummary& s) {
  int good = 0;
  const char* source = nullptr;
  for (const RequestRecord& r : records) {
    if (!r.was_sent) continue;
    ++s.sent;
    s.resent += r.retries > 0 ? 1 : 0;
    if (!is_success(r)) {
      ++s.failed;
      add_error(s, r);
      continue;
    }
    ++s.completed;
    const Latencies l = latencies_of(r);
    s.total_input_tokens += prompt_len(r);
    s.total_output_tokens += l.out;
    if (is_good(p.goodput_slo_ms, l.ttft_s, l.tpot_s, l.e2el_s)) ++good;
    source = merge_source(source, source_category(r));
  }
  s.token_count_source = source != nullptr ? source : "none";
  if (!p.goodput_slo_ms.empty()) s.request_goodput = good;  // divided by the duration later
}

int max_tokens_per_second(const std::vector<RequestRecord>& records) {
  Nanos t_min = 0, t_max = 0;
  bool any = false;
  for (const RequestRecord& r : records) {
    if (!is_success(r)) continue;
    t_min = any ? std::min(t_min, r.sent_ns) : r.sent_ns;
    t_max = any ? std::max(t_max, r.token_ns.back()) : r.token_ns.back();
    any = true;
  }
  if (!any) return 0;
  SecondBins bins(t_min, t_max);
  for (const RequestRecord& r : records) {
    if (!r.was_sent || !r.ok()) continue;
    for (Nanos t : r.token_ns) bins.add(t);
  }
  return bins.max_count();
}

Nanos stage_duration_ns(const std::vector<RequestRecord>& records, Nanos given_ns) {
  if (given_ns > 0) return given_ns;
  Nanos last = 0;
  for (const RequestRecord& r : records)
    if (r.was_sent) last = std::max(last, r.done_ns);
  return last;
}

void fill_throughputs(StageSummary& s) {
  if (s.duration_s <= 0) {
    if (s.request_goodput) s.request_goodput = 0.0;
    return;
  }
  s.request_throughput = s.completed / s.duration_s;
  s.output_throughput = static_cast<double>(s.total_output_tokens) / s.duration_s;
  s.total_token_throughput =
      static_cast<double>(s.total_input_tokens + s.total_output_tokens) / s.duration_s;
  if (s.request_goodput) s.request_goodput = *s.request_goodput / s.duration_s;
}

ScheduleLag lag_of(std::vector<double> ms) {
  std::sort(ms.begin(), ms.end());
  ScheduleLag lag;
  lag.p50_ms = np_percentile_sorted(ms, 50);
  lag.p99_ms = np_percentile_sorted(ms, 99);
  lag.max_ms = ms.empty() ? 0 : ms.back();
  return lag;
}

// The latency metrics in seconds, each list built, folded and freed in turn (collect()).
void fill_latencies(const std::vector<RequestRecord>& records, std::size_t n, std::span<const double> ps, StageSummary& s) {
  const auto stats = [&](auto value) {
    std::vector<double> xs = collect<double>(records, n, is_success,
                                             [&](const RequestRecord& r, auto& v) { v.push_back(value(latencies_of(r))); });
    return metric_stats_ms(xs, ps);
  };
  s.ttft = stats([](const Latencies& l) { return l.ttft_s; });
  std::vector<double> tpot = collect<double>(records, n, is_success, [](const RequestRecord& r, auto& v) {
    const Latencies l = latencies_of(r);
    if (l.out > 1) v.push_back(l.tpot_s);
  });
  s.tpot = metric_stats_ms(tpot, ps);
  tpot = {};
  s.itl = pooled_itl_stats_ms(records, is_success, ps);
  s.e2el = stats([](const Latencies& l) { return l.e2el_s; });
  s.client_queue_time = stats([](const Latencies& l) { return l.queue_s; });
  s.e2el_including_client_queue = stats([](const Latencies& l) { return l.e2el_s + l.queue_s; });
}

void fill_open_loop(const std::vector<RequestRecord>& records, const SummarizeParams& p, std::span<const double> ps,
                    StageSummary& s) {
  if (!p.load.open_loop()) return;
  const auto n = static_cast<std::size_t>(s.completed);
  const auto sent = static_cast<std::size_t>(s.sent);
  const auto was_sent = [](const RequestRecord& r) { return r.was_sent; };
  std::vector<double> xs = collect<double>(records, n, is_success, [](const RequestRecord& r, auto& v) {
    v.push_back(ns_to_s(r.token_ns.front() - r.intended_ns));
  });
  s.ttft_from_intended = metric_stats_ms(xs, ps);
  xs = collect<double>(records, n, is_success, [](const RequestRecord& r, auto& v) {
    v.push_back(ns_to_s(r.token_ns.back() - r.intended_ns));
  });
  s.e2el_from_intended = metric_stats_ms(xs, ps);
  xs = {};
  s.schedule_lag = lag_of(collect<double>(records, sent, was_sent, [](const RequestRecord& r, auto& v) {
    v.push_back(ns_to_ms(r.queue_ns()));
  }));
  s.dispatch_lag = lag_of(collect<double>(records, sent, was_sent, [](const RequestRecord& r, auto& v) {
    v.push_back(ns_to_ms(dispatch_lag_ns(r)));
  }));
  // The client's own lag is what saturation means; lag from waiting for a --max-concurrency slot is
  // the limit's, named apart (vLLM hid it).
  s.client_saturated = s.dispatch_lag->p99_ms > p.saturation_lag_ms;
  if (s.client_saturated) s.client_limit = ClientLimit::cpu;
  else if (s.schedule_lag->p99_ms > p.saturation_lag_ms) s.client_limit = ClientLimit::concurrency_limit;
}

// Token lengths asked for and delivered, over the successful requests.
void fill_lengths(const std::vector<RequestRecord>& records, std::size_t n, StageSummary& s) {
  const auto lengths = [&](auto keep, auto value) {
    std::vector<double> xs = collect<double>(records, n, keep, [&](const RequestRecord& r, auto& v) { v.push_back(value(r)); });
    return length_stats(xs);
  };
  s.input_requested = lengths([](const RequestRecord& r) { return is_success(r) && r.dataset_prompt_tokens >= 0; },
                              [](const RequestRecord& r) { return r.dataset_prompt_tokens; });
  s.input_delivered = lengths(is_success, [](const RequestRecord& r) { return prompt_len(r); });
  s.output_requested = lengths(is_success, [](const RequestRecord& r) { return r.expected_output_tokens; });
  s.output_delivered = lengths(is_success, [](const RequestRecord& r) { return output_len(r); });
}

// Requests in flight: the mean over the stage and the most at once (all sent requests), and the most
// successful ones streaming at once.
void fill_in_flight(const std::vector<RequestRecord>& records, Nanos duration_ns, StageSummary& s) {
  InFlightSteps steps;
  steps.reserve(static_cast<std::size_t>(s.completed));
  for (const RequestRecord& r : records)
    if (is_success(r)) steps.add(r.sent_ns, r.token_ns.back());
  steps.sort();
  s.max_concurrent_requests = steps.max_overlap();
  steps = {};
  steps.reserve(static_cast<std::size_t>(s.sent));
  Nanos busy_ns = 0;
  for (const RequestRecord& r : records) {
    if (!r.was_sent) continue;
    const Nanos end_ns = std::max(r.done_ns, r.sent_ns);
    busy_ns += end_ns - r.sent_ns;
    steps.add(r.sent_ns, end_ns);
  }
  steps.sort();
  s.in_flight_mean = duration_ns > 0 ? static_cast<double>(busy_ns) / static_cast<double>(duration_ns) : 0;
  s.in_flight_max = steps.max_overlap();
}

}  // namespace

StageSummary summarize(const std::vector<RequestRecord>& records, const SummarizeParams& p) {
  StageSummary s;
  s.stage_index = p.stage_index;
  s.load = p.load;
  s.num_prompts = p.num_prompts;
  s.aborted = p.aborted;
  const Nanos duration_ns = stage_duration_ns(records, p.duration_ns);
  s.duration_s = ns_to_s(duration_ns);
  s.start_unix_s = static_cast<double>(p.anchor.to_unix_ns(p.t0_ns)) / 1e9;
  s.end_unix_s = static_cast<double>(p.anchor.to_unix_ns(p.t0_ns + duration_ns)) / 1e9;

  fold_records(records, p, s);
  fill_throughputs(s);
  s.max_output_tokens_per_s = max_tokens_per_second(records);

  const std::vector<double> ps = percentile_set(p.percentiles);
  const auto completed = static_cast<std::size_t>(s.completed);
  fill_latencies(records, completed, ps, s);
  fill_open_loop(records, p, ps, s);
  fill_in_flight(records, duration_ns, s);
  fill_lengths(records, completed, s);
  s.output_check = check_outputs(records);
  s.ttft_breakdown = ttft_breakdown(records);
  s.prompt_cache = prompt_cache_share(records);
  return s;
}

}  // namespace sb
