#pragma once
// Everything `servebench run` does before the first request of the load: preflight, the tokenizer
// (--tokenizer, else the server's /tokenize), the dataset, prebuilt request bodies, the staircase
// and the RunContext the reporters read. Cold path; throws sb::UserError.
#include <cstdio>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "pipeline/run_config.hpp"
#include "dataset/dataset.hpp"
#include "load/staircase.hpp"
#include "net/http_call.hpp"
#include "report/run_context.hpp"
#include "target/server_tokenizer.hpp"
#include "tokenizer/tokenizer.hpp"

namespace sb::pipeline {

struct Prepared {
  std::unique_ptr<Tokenizer> tokenizer;  // --tokenizer, else the server's /tokenize; may be null
  bool local_tokenizer = false;          // from --tokenizer: cheap enough for the request path
  Dataset dataset;                       // stage 0's requests (+ spare rows for later stages)
  std::vector<std::string> bodies;       // one JSON body per dataset request
  Staircase staircase;
  report::RunContext ctx;
};

// Sets every spec's prompt_tokens to the server's count (specials added, as a completion request
// counts them). For datasets built without a tokenizer (random words, custom rows).
void recount_prompt_tokens(const ServerTokenizer& tok, std::vector<RequestSpec>& specs);

// `d` loaded as prepare_run loads the run's dataset: with the local tokenizer (`local`), with the
// server's /tokenize (a ServerTokenizer), or with none.
Dataset load_for_run(const DatasetConfig& d, const Tokenizer* tokenizer, bool local);

// One JSON body per spec, as the run sends them (model = the served model's id).
std::vector<std::string> build_request_bodies(const RunConfig& cfg, const std::string& model,
                                              const std::vector<RequestSpec>& specs);

// Authorization first (vLLM order), then --header pairs, which replace a header of the same name.
HeaderList request_headers(const RunConfig& c);

// What a run's context takes from its configuration and planned staircase (label, load, percentiles,
// ramp, metadata, redacted config under ctx.model_id, clocks); `run` and `predict` add the rest.
void fill_workload_context(const RunConfig& cfg, const Staircase& staircase, report::RunContext& ctx);

// Warnings and notes go to `err`, one line each.
Prepared prepare_run(const RunConfig& cfg, std::FILE* err);

// prepare_run on a helper thread, so that a stop ends the wait at once (nullopt): the blocking HTTP
// calls of the preflight and of the server's /tokenize cannot be interrupted (net/http_call), and
// would otherwise hold Ctrl-C for their timeout. On a stop the helper, working on its own copy of
// the config, is left to finish alone and its result is dropped. Rethrows prepare_run's errors.
std::optional<Prepared> prepare_until_stopped(const RunConfig& cfg, std::FILE* err, std::stop_token stop);

}  // namespace sb::pipeline
