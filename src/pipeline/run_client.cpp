#include "pipeline/run_client.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "metrics/request_record.hpp"
#include "metrics/test_request.hpp"
#include "pipeline/run_console.hpp"
#include "report/test_request_text.hpp"

namespace sb::pipeline {

// The configured client, plus what only the run knows: the API key in front of the --header pairs,
// and whether records keep their text.
ClientOptions client_options(const RunConfig& cfg, const Prepared& p) {
  ClientOptions o = cfg.client;
  o.headers = request_headers(cfg);
  // The text is needed for --save-detailed, and to re-tokenize outputs the server did not count.
  o.keep_text = o.keep_text || cfg.save_detailed || p.local_tokenizer;
  return o;
}

// vLLM's warm-up: K copies of the first request under the first stage's limit; results ignored.
void run_warmups(const RunConfig& cfg, const Prepared& p, Runner& runner, const RunIo& io) {
  if (cfg.num_warmups <= 0) return;
  std::vector<std::string> bodies(static_cast<std::size_t>(cfg.num_warmups), p.bodies.front());
  StageInput in;
  in.bodies = &bodies;
  const RequestSpec& first = p.dataset.requests.front();
  for (int i = 0; i < cfg.num_warmups; ++i)
    in.requests.push_back({fmt::format("{}warmup-{}", cfg.dataset.request_id_prefix, i), first.prompt_tokens,
                           first.max_tokens, 0});
  // A searched staircase starts at c=1, or at rates under --max-concurrency.
  in.max_concurrency = !p.staircase.stages.empty() ? p.staircase.stages.front().load.max_concurrency
                       : cfg.load.search == LoadMode::concurrency ? std::optional<int>(1)
                                                                   : cfg.load.max_concurrency;
  StageOutput out = runner.run_stage(in, {}, {});
  int failed = 0;
  for (const RequestRecord& r : out.records) failed += r.ok() ? 0 : 1;
  note(io, fmt::format("Warm-up: {} requests, {} failed", cfg.num_warmups, failed));
}

namespace {

// Sleeps `seconds` unless the run is stopped first; false when it was.
bool pause_unless_stopped(double seconds, std::stop_token stop) {
  std::mutex m;
  std::condition_variable_any cv;
  std::unique_lock lock(m);
  cv.wait_for(lock, stop, std::chrono::duration<double>(seconds), [] { return false; });
  return !stop.stop_requested();
}

// Try `n` (1..) of the test request; each try its own x-request-id, so a server that draws its
// faults from the id (servebench sim) draws again, as a real server's next try would.
RequestRecord send_test_request(const RunConfig& cfg, const Prepared& p, Runner& runner, int n) {
  StageInput in;
  in.bodies = &p.bodies;
  const RequestSpec& first = p.dataset.requests.front();
  const std::string id = cfg.dataset.request_id_prefix + (n == 1 ? "preflight" : fmt::format("preflight-{}", n));
  in.requests.push_back({id, first.prompt_tokens, first.max_tokens, 0});
  return std::move(runner.run_stage(in, {}, {}).records.front());
}

// --max-failure-ratio 1 (or none) never stops the load for failures: nor does the test request.
bool never_stops_for_failures(const RunConfig& cfg) { return !cfg.max_failure_ratio || *cfg.max_failure_ratio >= 1; }

}  // namespace

// As vLLM's benchmark: one request built like the run's first (same body, streamed), before any
// stage. What its failure says decides (metrics/test_request.hpp): a configuration fault stops
// the run at once (exit 3); a server-side failure is tried again, up to kTestRequestTries in all,
// and still failing stops the run with exit 7, or goes on with a warning where the load would
// never stop for failures. Its own runner: one thread, no grace on a stop, a timeout of at most
// 300 s. Returns its latency (s) when it ran and passed.
std::optional<double> run_preflight_request(const RunConfig& cfg, const Prepared& p, const RunIo& io,
                                            std::stop_token stop) {
  if (!cfg.preflight_request) return std::nullopt;
  ClientOptions opt = client_options(cfg, p);
  opt.threads = 1;
  opt.stop_grace_s = 0;
  opt.timeout_s = std::min(opt.timeout_s, 300.0);
  Runner runner(opt);
  std::stop_callback on_stop(stop, [&runner] { runner.request_stop(); });
  report::TestRequestFailure failure{cfg.client.endpoint.url(cfg.client.path), nullptr, TestRequestVerdict::ok, 0};
  RequestRecord last;
  for (int n = 1; n <= kTestRequestTries; ++n) {
    if (n > 1 && !pause_unless_stopped(test_request_backoff_s(n - 1), stop)) return std::nullopt;
    RequestRecord r = send_test_request(cfg, p, runner, n);
    if (stop.stop_requested()) return std::nullopt;
    const TestRequestVerdict verdict = judge_test_request(r);
    if (verdict == TestRequestVerdict::cancelled) return std::nullopt;
    if (verdict == TestRequestVerdict::ok) {
      if (failure.failed_tries > 0) note(io, report::format_test_request_recovered(failure));
      if (r.latency_ns() <= 0) return std::nullopt;
      return static_cast<double>(r.latency_ns()) / 1e9;
    }
    last = std::move(r);
    failure = {failure.url, &last, verdict, n};
    if (!worth_retrying(verdict)) break;
  }
  if (failure.verdict == TestRequestVerdict::unreachable || failure.verdict == TestRequestVerdict::rejected)
    throw UserError(report::format_test_request_stop(failure), ExitCode::unreachable);
  if (never_stops_for_failures(cfg)) {
    note(io, report::format_test_request_going_on(failure));
    return std::nullopt;
  }
  throw UserError(report::format_test_request_stop(failure), ExitCode::server_failed);
}

}  // namespace sb::pipeline
