#pragma once
// Parses the JSON body of an incoming POST /v1/completions or /v1/chat/completions (sans-I/O,
// simdjson DOM; one parser per thread). Only what the simulator needs is extracted; unknown keys
// are ignored as a real server would. Errors come back as a one-line message for a 400 reply.
//
// Example:
//   sb::sim::ParsedRequest req;
//   std::string err;
//   if (!sb::sim::parse_request(body, sb::Api::chat, req, err)) reply_400(err);
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "protocol/api.hpp"

namespace sb::sim {

struct ParsedRequest {
  std::string model;                   // "" when absent
  bool stream = false;
  bool include_usage = false;          // stream_options.include_usage
  int max_tokens = -1;                 // max_tokens / max_completion_tokens; -1 when absent
  bool ignore_eos = false;
  std::optional<std::uint64_t> seed;   // sampling seed, when given
  std::string prompt_text;             // prompt, or the concatenated text of all chat messages
  int prompt_token_ids = -1;           // prompt given as a token-id array: its length; else -1
};

// Returns false and sets `error` ("max_tokens must be a positive integer") on a malformed body.
bool parse_request(std::string_view body, Api api, ParsedRequest& out, std::string& error);

// Cheap prompt-length estimate used when no tokenizer is loaded: one token per 4 bytes of text,
// rounded up, at least 1 (OpenAI's rule of thumb for English text).
int approx_prompt_tokens(std::string_view text) noexcept;

}  // namespace sb::sim
