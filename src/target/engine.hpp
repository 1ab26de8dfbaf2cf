#pragma once
// Which inference engine answers at the base URL (docs/engines.md), decided without I/O from the
// answers to a few cheap GETs (engine_probe.hpp asks them). Each engine speaks its own dialect of
// the OpenAI API: where usage comes, how /tokenize is shaped. An unknown server is `openai`.
//
// Example:
//   EngineProbes p;
//   p.models = {200, R"({"data":[{"id":"m","owned_by":"llamacpp","meta":{}}]})", ""};
//   EngineGuess g = classify_engine(p);   // {Engine::llamacpp, EngineClue::models_owned_by}
#include <optional>
#include <string>
#include <string_view>

namespace sb {

enum class Engine { openai, vllm, sglang, tgi, llamacpp };

// How the engine was known, most decisive first. `given`: --engine; `none`: nothing matched.
enum class EngineClue {
  given,
  models_owned_by,    // /v1/models data[].owned_by: "vllm", "sglang", "llamacpp"
  models_meta,        // /v1/models data[].meta (llama.cpp's GGUF metadata object)
  server_header,      // the Server response header ("llama.cpp")
  props,              // GET /props answers like llama.cpp's (default_generation_settings, total_slots)
  get_model_info,     // GET /get_model_info answers like SGLang's (model_path, is_generation)
  get_server_info,    // GET /get_server_info answers like SGLang's (server args and version)
  info,               // GET /info answers like TGI's (router "text-generation-router")
  version,            // GET /version answers {"version": ...} as vLLM's does
  none,
};

// One probe's answer: status 0 when not asked or the call failed (never an error).
struct ProbeAnswer {
  int status = 0;
  std::string body;
  std::string server_header;  // value of the Server header, "" if none
};

struct EngineProbes {
  ProbeAnswer models;           // GET /v1/models (preflight's own call)
  ProbeAnswer props;            // GET /props
  ProbeAnswer get_model_info;   // GET /get_model_info
  ProbeAnswer get_server_info;  // GET /get_server_info
  ProbeAnswer info;             // GET /info
  ProbeAnswer version;          // GET /version
};

struct EngineGuess {
  Engine engine = Engine::openai;
  EngineClue clue = EngineClue::none;
  std::string version;  // the engine's version where a probe gave it ("" if unknown)
};

// The most decisive clue among the probes, in EngineClue's order; Engine::openai with clue none
// when nothing matched. Bodies that are not JSON count as no answer.
EngineGuess classify_engine(const EngineProbes& probes);

// The GET paths engine_probe asks after /v1/models, in order; it stops at the first decisive answer.
inline constexpr std::string_view kEngineProbePaths[] = {"/props", "/get_model_info", "/info", "/version",
                                                         "/get_server_info"};
// The slot of `probes` that holds the answer to `path` (one of kEngineProbePaths).
ProbeAnswer& probe_slot(EngineProbes& probes, std::string_view path);

// Stable names, as --engine takes them and the results record them: "openai", "vllm", "sglang",
// "tgi", "llama.cpp".
std::string_view engine_name(Engine e);
std::optional<Engine> parse_engine(std::string_view name);  // also "llamacpp"; nullopt if unknown
// "given", "models.owned_by", "models.meta", "header.server", "props", "get_model_info",
// "get_server_info", "info", "version", "none".
std::string_view clue_name(EngineClue c);

}  // namespace sb
