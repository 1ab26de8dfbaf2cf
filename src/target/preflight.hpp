#pragma once
// Before any load: GET {base}/v1/models to prove the server is reachable, the key is accepted and
// the model is served (docs/run.md, step 2; docs/exit-codes.md, code 3). Every failure is one
// actionable UserError with ExitCode::unreachable; the API key itself is never printed. Then the
// engine behind the URL (target/engine_probe.hpp), which never fails the preflight.
#include <optional>
#include <string>
#include <vector>

#include "net/endpoint.hpp"
#include "net/http_call.hpp"
#include "target/engine.hpp"

namespace sb {

struct PreflightInput {
  Endpoint endpoint;
  HeaderList headers;                 // Authorization included when a key is configured
  std::string api_key_source;         // "env OPENAI_API_KEY", "config file", "" = no key sent
  std::optional<std::string> model;   // --served-model-name or --model: what the requests will name
  double timeout_s = 30;
  std::optional<Engine> engine;       // --engine: taken as given, nothing probed
  double engine_probe_timeout_s = 2;  // per engine probe GET
};

struct PreflightResult {
  std::string model_id;               // the model to send (given, or the first served id)
  std::string model_root;             // /v1/models `root` of that id ("" if unknown): tokenizer hint
  std::vector<std::string> served_ids;
  std::vector<std::string> warnings;  // one line each, printed before the run
  EngineGuess engine;                 // check_models_reply leaves it `openai`; preflight() detects it
  double server_time_scale = 1;       // servebench sim --time-scale K advertises K (ServedModel::time_scale)
};

PreflightResult preflight(const PreflightInput& in);

// Decides from a /v1/models reply (sans-I/O part of preflight, unit-tested on its own).
PreflightResult check_models_reply(const PreflightInput& in, const HttpReply& reply);

}  // namespace sb
