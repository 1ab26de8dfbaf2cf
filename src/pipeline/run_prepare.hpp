#pragma once
// Everything `servebench run` does before the first request of the load: preflight, the tokenizer
// (--tokenizer, else the server's /tokenize), the dataset, prebuilt request bodies, the staircase
// and the RunContext the reporters read. Cold path; throws sb::UserError.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "pipeline/run_config.hpp"
#include "dataset/dataset.hpp"
#include "load/staircase.hpp"
#include "net/http_call.hpp"
#include "report/run_context.hpp"
#include "tokenizer/tokenizer.hpp"

namespace sb::pipeline {

struct Prepared {
  std::unique_ptr<Tokenizer> tokenizer;  // --tokenizer, else the server's /tokenize; may be null
  bool local_tokenizer = false;          // from --tokenizer: cheap enough for the request path
  Dataset dataset;
  std::vector<std::string> bodies;       // one JSON body per dataset request
  Staircase staircase;
  RunContext ctx;
};

// Authorization first (vLLM order), then --header pairs, which replace a header of the same name.
HeaderList request_headers(const RunConfig& c);

// Warnings and notes go to `err`, one line each.
Prepared prepare_run(const RunConfig& cfg, std::FILE* err);

}  // namespace sb::pipeline
