#pragma once
// Asks the few cheap GETs that tell the engine apart (target/engine.hpp), after preflight's
// GET /v1/models: /props, /get_model_info, /info, /version, /get_server_info, in that order, each
// with a short timeout, stopping at the first decisive answer. Never throws and never fails a run:
// a probe that errs or times out is no answer, and an unknown server is `openai`.
#include <optional>

#include "net/endpoint.hpp"
#include "net/http_call.hpp"
#include "target/engine.hpp"

namespace sb {

struct EngineProbeInput {
  Endpoint endpoint;
  HeaderList headers;              // as the requests send them (a gateway may want the key)
  std::optional<Engine> given;     // --engine: no probing at all
  double timeout_s = 2;            // per probe
};

// `models` is preflight's reply to GET /v1/models (its body and Server header are the first clues).
EngineGuess detect_engine(const EngineProbeInput& in, const HttpReply& models);

}  // namespace sb
