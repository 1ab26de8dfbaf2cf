#include "metrics/summarize.hpp"

#include <algorithm>
#include <set>
#include <string_view>

#include "metrics/client_use.hpp"
#include "metrics/output_check.hpp"
#include "metrics/prompt_cache.hpp"
#include "metrics/peaks.hpp"
#include "metrics/stats.hpp"
#include "metrics/ttft_breakdown.hpp"

namespace sb {

namespace {

// Per-request samples in seconds, as vLLM collects them before taking statistics.
struct Samples {
  std::vector<double> ttft, tpot, itl, e2el, queue, e2el_with_queue;
  std::vector<double> ttft_intended, e2el_intended;
  std::vector<double> lag_ms, dispatch_lag_ms;
  std::vector<double> in_req, in_got, out_req, out_got;
  std::vector<Interval> ok_spans, all_spans;

  // Exact sizes up front: growing by doubling would hold up to twice each list at the stage's end,
  // when the records are all in memory too (issue 13: memory per request).
  void reserve(std::size_t requests, bool open_loop) {
    for (auto* v : {&ttft, &tpot, &e2el, &queue, &e2el_with_queue, &in_req, &in_got, &out_req, &out_got}) v->reserve(requests);
    if (open_loop)
      for (auto* v : {&ttft_intended, &e2el_intended, &lag_ms, &dispatch_lag_ms}) v->reserve(requests);
    ok_spans.reserve(requests);
    all_spans.reserve(requests);
  }
};

std::vector<double> percentile_set(const std::vector<double>& requested) {
  // The sweep document always carries p50/p90/p95/p99 besides --metric-percentiles.
  std::set<double> ps(requested.begin(), requested.end());
  ps.insert({50, 90, 95, 99});
  return {ps.begin(), ps.end()};
}

// Output tokens of a successful request: the client's count, or one per token event if it had none.
int output_len(const RequestRecord& r) noexcept {
  return r.output_tokens > 0 ? r.output_tokens : static_cast<int>(r.token_ns.size());
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

// Folds one successful request into the counters and samples; returns whether it met the SLOs.
bool fold_success(const RequestRecord& r, const SummarizeParams& p, StageSummary& s, Samples& x) {
  const int out = output_len(r);
  const int prompt = r.prompt_tokens >= 0 ? r.prompt_tokens : std::max(r.dataset_prompt_tokens, 0);
  s.total_input_tokens += prompt;
  s.total_output_tokens += out;

  const double ttft_s = ns_to_s(r.ttft_ns());
  const double e2el_s = ns_to_s(r.latency_ns());
  const double queue_s = ns_to_s(r.queue_ns());
  // vLLM subtracts the two float latencies; doing the same keeps the last bits equal.
  const double tpot_s = out > 1 ? (e2el_s - ttft_s) / (out - 1) : 0.0;
  x.ttft.push_back(ttft_s);
  x.e2el.push_back(e2el_s);
  if (out > 1) x.tpot.push_back(tpot_s);
  for (std::size_t i = 1; i < r.token_ns.size(); ++i)
    x.itl.push_back(ns_to_s(r.token_ns[i] - r.token_ns[i - 1]));
  x.queue.push_back(queue_s);
  x.e2el_with_queue.push_back(e2el_s + queue_s);
  if (p.load.open_loop()) {
    x.ttft_intended.push_back(ns_to_s(r.token_ns.front() - r.intended_ns));
    x.e2el_intended.push_back(ns_to_s(r.token_ns.back() - r.intended_ns));
  }
  if (r.dataset_prompt_tokens >= 0) x.in_req.push_back(r.dataset_prompt_tokens);
  x.in_got.push_back(prompt);
  x.out_req.push_back(r.expected_output_tokens);
  x.out_got.push_back(out);
  x.ok_spans.push_back({r.sent_ns, r.token_ns.back()});
  return is_good(p.goodput_slo_ms, ttft_s, tpot_s, e2el_s);
}

// Categories are string literals, so equal categories have equal text.
const char* merge_source(const char* so_far, const char* next) noexcept {
  if (so_far == nullptr || std::string_view(so_far) == next) return next;
  return "mixed";
}

// Counters, samples and errors over every sent request.
Samples fold_records(const std::vector<RequestRecord>& records, const SummarizeParams& p,
                     StageSummary& s) {
  Samples x;
  std::size_t token_events = 0;
  for (const RequestRecord& r : records) token_events += r.token_ns.size();
  x.itl.reserve(token_events);  // the pooled ITL list is the largest (one per token event)
  x.reserve(records.size(), p.load.open_loop());
  int good = 0;
  const char* source = nullptr;
  for (const RequestRecord& r : records) {
    if (!r.was_sent) continue;
    ++s.sent;
    x.all_spans.push_back({r.sent_ns, std::max(r.done_ns, r.sent_ns)});
    if (p.load.open_loop()) {
      x.lag_ms.push_back(ns_to_ms(r.queue_ns()));
      x.dispatch_lag_ms.push_back(ns_to_ms(dispatch_lag_ns(r)));
    }
    // A record marked ok without a token event cannot have a TTFT; count it as vLLM would.
    if (!r.ok() || r.token_ns.empty()) {
      ++s.failed;
      add_error(s, r);
      continue;
    }
    ++s.completed;
    if (fold_success(r, p, s, x)) ++good;
    source = merge_source(source, source_category(r));
  }
  s.token_count_source = source != nullptr ? source : "none";
  if (!p.goodput_slo_ms.empty()) s.request_goodput = good;  // divided by the duration later
  return x;
}

int max_tokens_per_second(const std::vector<RequestRecord>& records) {
  Nanos t_min = 0, t_max = 0;
  bool any = false;
  for (const RequestRecord& r : records) {
    if (!r.was_sent || !r.ok() || r.token_ns.empty()) continue;
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

ScheduleLag lag_of(std::vector<double>& ms) {
  std::sort(ms.begin(), ms.end());
  ScheduleLag lag;
  lag.p50_ms = np_percentile_sorted(ms, 50);
  lag.p99_ms = np_percentile_sorted(ms, 99);
  lag.max_ms = ms.empty() ? 0 : ms.back();
  return lag;
}

void fill_open_loop(Samples& x, const SummarizeParams& p, std::span<const double> ps,
                    StageSummary& s) {
  if (!p.load.open_loop()) return;
  s.ttft_from_intended = metric_stats_ms(x.ttft_intended, ps);
  s.e2el_from_intended = metric_stats_ms(x.e2el_intended, ps);
  s.schedule_lag = lag_of(x.lag_ms);
  s.dispatch_lag = lag_of(x.dispatch_lag_ms);
  // The client's own lag is what saturation means; lag from waiting for a --max-concurrency slot is
  // the limit's, named apart (vLLM hid it).
  s.client_saturated = s.dispatch_lag->p99_ms > p.saturation_lag_ms;
  if (s.client_saturated) s.client_limit = ClientLimit::cpu;
  else if (s.schedule_lag->p99_ms > p.saturation_lag_ms) s.client_limit = ClientLimit::concurrency_limit;
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

  Samples x = fold_records(records, p, s);
  fill_throughputs(s);
  s.max_output_tokens_per_s = max_tokens_per_second(records);
  s.max_concurrent_requests = max_overlap(x.ok_spans);

  const std::vector<double> ps = percentile_set(p.percentiles);
  s.ttft = metric_stats_ms(x.ttft, ps);
  s.tpot = metric_stats_ms(x.tpot, ps);
  s.itl = metric_stats_ms(x.itl, ps);
  s.e2el = metric_stats_ms(x.e2el, ps);
  s.client_queue_time = metric_stats_ms(x.queue, ps);
  s.e2el_including_client_queue = metric_stats_ms(x.e2el_with_queue, ps);
  fill_open_loop(x, p, ps, s);

  Nanos busy_ns = 0;
  for (const Interval& iv : x.all_spans) busy_ns += iv.end_ns - iv.begin_ns;
  s.in_flight_mean = duration_ns > 0 ? static_cast<double>(busy_ns) / static_cast<double>(duration_ns) : 0;
  s.in_flight_max = max_overlap(x.all_spans);
  s.input_requested = length_stats(x.in_req);
  s.input_delivered = length_stats(x.in_got);
  s.output_requested = length_stats(x.out_req);
  s.output_delivered = length_stats(x.out_got);
  s.output_check = check_outputs(records);
  s.ttft_breakdown = ttft_breakdown(records);
  s.prompt_cache = prompt_cache_share(records);
  return s;
}

}  // namespace sb
