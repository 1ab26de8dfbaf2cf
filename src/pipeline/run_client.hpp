#pragma once
// The run's load client and what it sends before the first stage: its options (the configured
// client plus what only the run knows), vLLM's test request and the warm-ups.
#include <optional>
#include <stop_token>

#include "exec/runner.hpp"
#include "pipeline/run_config.hpp"
#include "pipeline/run_pipeline.hpp"
#include "pipeline/run_prepare.hpp"

namespace sb::pipeline {

// cfg.client with the API key and --header pairs, and keep_text where the run needs the text.
ClientOptions client_options(const RunConfig& cfg, const Prepared& p);

// --num-warmups copies of the first request through `runner`; prints a line with the failures.
void run_warmups(const RunConfig& cfg, const Prepared& p, Runner& runner, const RunIo& io);

// The test request (unless --no-preflight-request): its latency in seconds when it ran and
// succeeded; nullopt when skipped or stopped. Throws sb::UserError (ExitCode::unreachable) when it failed.
std::optional<double> run_preflight_request(const RunConfig& cfg, const Prepared& p, std::stop_token stop);

}  // namespace sb::pipeline
