#include "pipeline/selftest.hpp"

#include <fmt/format.h>
#include <sys/prctl.h>

#include <algorithm>
#include <string>
#include <thread>
#include <vector>

#include "core/error.hpp"
#include "exec/runner.hpp"
#include "metrics/stats.hpp"

namespace sb::pipeline {
namespace {

std::string selftest_body(int max_tokens) {
  return fmt::format(R"({{"model":"sim-model","prompt":"selftest","max_tokens":{},"ignore_eos":true,)"
                     R"("stream":true,"stream_options":{{"include_usage":true}}}})",
                     max_tokens);
}

ClientOptions selftest_client(const SelftestParams& p) {
  ClientOptions o;
  o.endpoint = p.endpoint;
  o.threads = p.threads;
  o.timeout_s = 30;
  o.idle_timeout_s = 10;
  return o;
}

double mean_clock_read_ns() {
  constexpr int kReads = 100000;
  Nanos sink = 0;
  const Nanos t0 = now_ns();
  for (int i = 0; i < kReads; ++i) sink ^= now_ns();
  const Nanos t1 = now_ns();
  // Keeps the reads from being folded away.
  if (sink == 42) std::fputs("", stderr);
  return static_cast<double>(t1 - t0) / kReads;
}

// As the dispatcher waits: sleep until t0 + k * gap, with 1 us timer slack.
double timer_overshoot_p99_us(const SelftestParams& p) {
  prctl(PR_SET_TIMERSLACK, 1000UL, 0UL, 0UL, 0UL);
  std::vector<double> late_s;
  const Nanos gap = static_cast<Nanos>(p.timer_gap_us * 1e3);
  const Nanos t0 = now_ns();
  for (int k = 1; k <= p.timer_sleeps; ++k) {
    const Nanos due = t0 + k * gap;
    std::this_thread::sleep_until(std::chrono::steady_clock::time_point(std::chrono::nanoseconds(due)));
    late_s.push_back(ns_to_s(now_ns() - due));
  }
  std::sort(late_s.begin(), late_s.end());
  return np_percentile_sorted(late_s, 99) * 1e6;
}

struct Throughput {
  std::size_t events = 0, ok = 0;
  Nanos wall_ns = 0, worker_cpu_ns = 0;
  std::string first_error;
};

Throughput tally(const StageOutput& out) {
  Throughput t;
  for (const RequestRecord& r : out.records) {
    if (r.ok()) ++t.ok;
    else if (t.first_error.empty() && r.was_sent) t.first_error = r.error;
    t.events += r.token_ns.size();
  }
  t.wall_ns = out.end_ns;
  t.worker_cpu_ns = out.client_times.worker_cpu_ns;
  return t;
}

// Closed loop at connections_per_thread x threads for throughput_s, requests cycled.
Throughput closed_loop(Runner& runner, const SelftestParams& p) {
  const std::vector<std::string> bodies{selftest_body(p.tokens_per_request)};
  StageInput in;
  in.bodies = &bodies;
  in.requests.push_back({"", -1, p.tokens_per_request, 0, 0});
  in.max_concurrency = p.connections_per_thread * std::max(1, p.threads);
  in.issue_for_ns = static_cast<Nanos>(p.throughput_s * 1e9);
  in.issue_count = kUntilDeadline;
  return tally(runner.run_stage(in, {}, {}));
}

double dispatch_lag_p99_ms(Runner& runner, const SelftestParams& p) {
  const std::vector<std::string> bodies{selftest_body(1)};
  StageInput in;
  in.bodies = &bodies;
  const auto n = static_cast<std::size_t>(std::max(1.0, p.dispatch_rate * p.dispatch_s));
  for (std::size_t i = 0; i < n; ++i)
    in.requests.push_back({"", -1, 1, static_cast<Nanos>(static_cast<double>(i) * 1e9 / p.dispatch_rate), 0});
  const StageOutput out = runner.run_stage(in, {}, {});
  std::vector<double> lag_s;
  for (const RequestRecord& r : out.records)
    if (r.was_sent) lag_s.push_back(ns_to_s(r.queue_ns()));
  std::sort(lag_s.begin(), lag_s.end());
  return np_percentile_sorted(lag_s, 99) * 1e3;
}

}  // namespace

ClientCeiling measure_ceiling(const SelftestParams& p) {
  ClientCeiling c;
  c.threads = p.threads;
  c.timestamp_overhead_ns = mean_clock_read_ns();
  c.timer_overshoot_p99_us = timer_overshoot_p99_us(p);
  Runner runner(selftest_client(p));
  const Throughput t = closed_loop(runner, p);
  if (t.ok == 0 || t.events == 0)
    throw UserError(fmt::format("selftest: the simulator at {} answered no request{}", p.endpoint.url(""),
                                t.first_error.empty() ? "" : ": " + t.first_error));
  const double wall_s = ns_to_s(t.wall_ns);
  c.events_per_s = static_cast<double>(t.events) / wall_s;
  c.requests_per_s = static_cast<double>(t.ok) / wall_s;
  // Per second of one worker's CPU: what a thread does when nothing else wants the core.
  c.events_per_cpu_s = t.worker_cpu_ns > 0 ? static_cast<double>(t.events) / ns_to_s(t.worker_cpu_ns) : 0;
  c.dispatch_rate = p.dispatch_rate;
  c.dispatch_lag_p99_ms = dispatch_lag_p99_ms(runner, p);
  c.measured_unix_s = static_cast<double>(unix_now_ns()) / 1e9;
  c.source = CeilingSource::probe;
  return c;
}

}  // namespace sb::pipeline
