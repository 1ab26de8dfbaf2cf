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

// The test request (unless --no-preflight-request), tried again on a server-side failure: its
// latency in seconds when it ran and passed; nullopt when skipped, stopped, or failed where the run
// goes on anyway (a warning on io). Throws sb::UserError: ExitCode::unreachable on a configuration
// fault, ExitCode::server_failed when the server failed every try (docs/exit-codes.md).
std::optional<double> run_preflight_request(const RunConfig& cfg, const Prepared& p, const RunIo& io,
                                            std::stop_token stop);

}  // namespace sb::pipeline
