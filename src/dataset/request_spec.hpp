#pragma once
// One request to send, prepared before the run (no tokenizing on the hot path).
#include <string>

namespace sb {

struct RequestSpec {
  std::string prompt;           // text sent as `prompt` (completions) or the user message (chat)
  int prompt_tokens = -1;       // client-side count, special tokens included as vLLM counts; -1 = unknown
  int max_tokens = 0;           // expected output length, sent as max_tokens / max_completion_tokens
  std::string request_id;       // prefix + index, sent as x-request-id
};

}  // namespace sb
