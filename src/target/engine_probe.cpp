#include "target/engine_probe.hpp"

#include "core/error.hpp"

namespace sb {

namespace {

ProbeAnswer answer_of(const HttpReply& r) { return {r.status, r.body, r.server}; }

}  // namespace

EngineGuess detect_engine(const EngineProbeInput& in, const HttpReply& models) {
  if (in.given) return {*in.given, EngineClue::given, ""};
  EngineProbes probes;
  probes.models = answer_of(models);
  EngineGuess guess = classify_engine(probes);
  for (std::string_view path : kEngineProbePaths) {
    if (guess.engine != Engine::openai) break;
    try {
      probe_slot(probes, path) = answer_of(http_call(in.endpoint, "GET", path, in.headers, "", in.timeout_s));
    } catch (const UserError&) {
      // Refused, reset or timed out: the other paths would likely do the same, and each costs up to
      // its timeout. The guess stands as it is; the run goes on either way.
      break;
    }
    guess = classify_engine(probes);
  }
  return guess;
}

}  // namespace sb
