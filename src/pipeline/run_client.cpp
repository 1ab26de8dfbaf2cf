#include "pipeline/run_client.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "metrics/failure_cause.hpp"
#include "metrics/request_record.hpp"
#include "pipeline/run_console.hpp"
#include "report/remedies.hpp"

namespace sb::pipeline {

using report::remedy;

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

// As vLLM's benchmark: one request built like the run's first (same body, streamed), before any
// stage; its failure ends the run as unreachable (exit 3) with the cause. Its own runner: one
// thread, no grace on a stop, a timeout of at most 300 s. Returns its latency (s) when it ran.
std::optional<double> run_preflight_request(const RunConfig& cfg, const Prepared& p, std::stop_token stop) {
  if (!cfg.preflight_request) return std::nullopt;
  ClientOptions opt = client_options(cfg, p);
  opt.threads = 1;
  opt.stop_grace_s = 0;
  opt.timeout_s = std::min(opt.timeout_s, 300.0);
  Runner runner(opt);
  std::stop_callback on_stop(stop, [&runner] { runner.request_stop(); });
  StageInput in;
  in.bodies = &p.bodies;
  const RequestSpec& first = p.dataset.requests.front();
  in.requests.push_back({cfg.dataset.request_id_prefix + "preflight", first.prompt_tokens, first.max_tokens, 0});
  const StageOutput out = runner.run_stage(in, {}, {});
  const RequestRecord& r = out.records.front();
  if (stop.stop_requested()) return std::nullopt;
  if (r.ok()) return r.latency_ns() > 0 ? std::optional<double>(static_cast<double>(r.latency_ns()) / 1e9) : std::nullopt;
  const std::string fix = remedy(classify_failure(r.http_status, r.error));
  throw UserError(fmt::format("the test request (POST {}, built like the run's first) failed ({}): {}{}; "
                              "--no-preflight-request skips it",
                              cfg.client.endpoint.url(cfg.client.path), to_string(r.outcome), r.error,
                              fix.empty() ? "" : " -> " + fix),
                  ExitCode::unreachable);
}

}  // namespace sb::pipeline
