#pragma once
// The simulator's non-generating endpoints as plain functions from request text to a reply
// (sans-I/O, so they are unit-tested without sockets): GET /v1/models, POST /tokenize and
// /detokenize (vLLM's shapes), OpenAI-style error replies and the API-key check.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace sb {
class Tokenizer;
}

namespace sb::sim {

struct Reply {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
};

struct ModelInfo {
  std::string id;          // --served-model-name
  std::string root;        // what /v1/models reports as "root" (the model path); id when empty
  int max_model_len = 0;
  std::int64_t created_s = 0;
  double time_scale = 1;   // the backend's speed-up over the modelled GPU; advertised when not 1
};

Reply models_reply(const ModelInfo& m);
Reply error_reply(int status, std::string_view message);

// POST /tokenize: {"prompt": "...", "add_special_tokens": true} (or "messages": [...], whose text
// contents are joined with '\n') -> {"count", "max_model_len", "tokens", "token_strs": null}.
Reply tokenize_reply(std::string_view body, const Tokenizer& tok, const ModelInfo& m);
// POST /detokenize: {"tokens": [ids]} -> {"prompt": "..."}.
Reply detokenize_reply(std::string_view body, const Tokenizer& tok);

// `Authorization: Bearer KEY` check (vLLM's --api-key); an empty api_key admits everything.
bool authorized(std::string_view authorization, std::string_view api_key) noexcept;

// 404 body of vLLM for an unknown model name.
Reply unknown_model_reply(std::string_view requested);
// vLLM's 400 when prompt + max_tokens exceeds max_model_len (0 = no limit); nullopt when it fits.
std::optional<Reply> context_length_refusal(int prompt_tokens, int max_tokens, int max_model_len);

}  // namespace sb::sim
