// What engines answer outside the stream: the engine classifier over probe bodies (never throws;
// an answer is an engine or `openai`), and each engine's /tokenize reply reader (a one-line
// sb::UserError or a reply). The first byte chooses the engine and whether specials are wanted.
// Properties: a reply's count is the number of ids it holds (vLLM's may send a count alone), and a
// TGI reply read without specials never holds more ids than with them.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "core/error.hpp"
#include "target/engine.hpp"
#include "target/tokenize_dialect.hpp"

namespace {

constexpr sb::Engine kEngines[] = {sb::Engine::openai, sb::Engine::vllm, sb::Engine::sglang, sb::Engine::tgi,
                                   sb::Engine::llamacpp};

void check_reply(sb::Engine e, std::string_view body, bool specials) {
  try {
    const sb::TokenizeReply r = sb::parse_tokenize_reply_for(e, body, specials, "fuzz");
    const bool count_only = r.tokens.empty() && (e == sb::Engine::openai || e == sb::Engine::vllm || e == sb::Engine::sglang);
    if (!count_only && r.count != r.tokens.size()) std::abort();
    if (e == sb::Engine::tgi && !specials &&
        r.tokens.size() > sb::parse_tokenize_reply_for(e, body, true, "fuzz").tokens.size()) {
      std::abort();
    }
  } catch (const sb::UserError&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const sb::Engine engine = kEngines[data[0] % 5];
  const bool specials = (data[0] / 5) % 2 == 1;
  const std::string body(reinterpret_cast<const char*>(data) + 1, size - 1);
  check_reply(engine, body, specials);
  sb::EngineProbes probes;
  for (sb::ProbeAnswer* a : {&probes.models, &probes.props, &probes.get_model_info, &probes.get_server_info,
                             &probes.info, &probes.version}) {
    *a = {200, body, body.substr(0, 16)};
  }
  const sb::EngineGuess g = sb::classify_engine(probes);
  if (g.clue == sb::EngineClue::none && g.engine != sb::Engine::openai) std::abort();
  return 0;
}
