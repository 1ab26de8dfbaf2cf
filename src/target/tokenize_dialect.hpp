#pragma once
// Each engine's POST /tokenize and /detokenize shapes (sans-I/O; docs/engines.md):
//   vLLM, SGLang, openai (generic: vLLM's guess)  {"model","prompt","add_special_tokens"} -> {"tokens","count",...}
//   llama.cpp                                     {"content","add_special"} -> {"tokens": [ids]}
//   TGI                                           {"inputs"} -> [{"id","text","start","stop"}, ...]
// A reply is only read in its own engine's shape: llama.cpp answers a vLLM-style {"prompt"} with
// HTTP 200 {"tokens": []}, which read as vLLM's would be 0 tokens.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "target/engine.hpp"

namespace sb {

struct TokenizeReply {
  std::size_t count = 0;                 // "count", else the length of "tokens"
  std::vector<std::int32_t> tokens;      // empty when the reply had none
  std::optional<int> max_model_len;      // vLLM and SGLang send it; other servers may not
};

// ---- vLLM's shape (also SGLang's, and the guess for an unknown server) ----

// {"model": M, "prompt": TEXT, "add_special_tokens": B}; "model" is left out when empty (vLLM
// then uses its only model).
std::string tokenize_request_body(std::string_view model, std::string_view text, bool add_special_tokens);
// {"model": M, "tokens": [ids]}.
std::string detokenize_request_body(std::string_view model, const std::vector<std::int32_t>& ids);
// Throws sb::UserError "<where>: <what is wrong>" when the body is not a /tokenize reply.
TokenizeReply parse_tokenize_reply(std::string_view body, std::string_view where);
// Throws sb::UserError when the body has no string "prompt".
std::string parse_detokenize_reply(std::string_view body, std::string_view where);

// ---- per engine ----

std::string tokenize_body_for(Engine e, std::string_view model, std::string_view text, bool add_special_tokens);
// TGI has no flag for specials: its reply marks them with an empty offset span (start == stop), and
// they are left out here when `add_special_tokens` is false.
TokenizeReply parse_tokenize_reply_for(Engine e, std::string_view body, bool add_special_tokens,
                                       std::string_view where);
bool has_detokenize(Engine e);  // TGI has none
std::string detokenize_body_for(Engine e, std::string_view model, const std::vector<std::int32_t>& ids);
std::string parse_detokenize_reply_for(Engine e, std::string_view body, std::string_view where);

}  // namespace sb
