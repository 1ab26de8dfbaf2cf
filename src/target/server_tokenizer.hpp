#pragma once
// Token counts from the server itself when no --tokenizer is given: vLLM's POST {base}/tokenize
// ({"model", "prompt", "add_special_tokens"} -> {"count", "max_model_len", "tokens"}) and
// POST {base}/detokenize ({"model", "tokens"} -> {"prompt"}), which `servebench sim --tokenizer`
// serves too. Cold path only (dataset loading, before any stage): every call is one blocking
// sb::http_call, so count_many() spreads a dataset's texts over a few threads.
//
// Example:
//   auto tok = sb::probe_server_tokenizer(ep, headers, "llama", /*timeout_s=*/30);
//   if (!tok) { /* no /tokenize: lengths stay approximate */ }
//   std::size_t n = tok->count("Hello world", /*add_special_tokens=*/true);
//
// What the API cannot tell: the vocabulary (vocab_size() is 0, special_ids() empty), so the random
// dataset, which draws token ids, cannot use this tokenizer (it throws a UserError on vocab 0);
// give it no tokenizer and recount its word prompts with recount_prompt_tokens() instead.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "net/endpoint.hpp"
#include "net/http_call.hpp"
#include "tokenizer/tokenizer.hpp"

namespace sb {

// ---- sans-I/O halves (unit-tested without sockets) ----

// {"model": M, "prompt": TEXT, "add_special_tokens": B}; "model" is left out when empty (vLLM
// then uses its only model).
std::string tokenize_request_body(std::string_view model, std::string_view text, bool add_special_tokens);
// {"model": M, "tokens": [ids]}.
std::string detokenize_request_body(std::string_view model, const std::vector<std::int32_t>& ids);

struct TokenizeReply {
  std::size_t count = 0;                 // "count", else the length of "tokens"
  std::vector<std::int32_t> tokens;      // empty when the reply had none
  std::optional<int> max_model_len;      // vLLM sends it; other servers may not
};
// Throws sb::UserError "<where>: <what is wrong>" when the body is not a /tokenize reply.
TokenizeReply parse_tokenize_reply(std::string_view body, std::string_view where);
// Throws sb::UserError when the body has no string "prompt".
std::string parse_detokenize_reply(std::string_view body, std::string_view where);

// ---- the tokenizer ----

struct ServerTokenizerOptions {
  Endpoint endpoint;
  HeaderList headers;        // Authorization and --header pairs, as the requests send them
  std::string model;         // served model id ("" = let the server pick)
  double timeout_s = 30;     // per call
  int threads = 8;           // concurrent calls in count_many()
};

class ServerTokenizer final : public Tokenizer {
 public:
  // Calls nothing; probe_server_tokenizer_detailed() checks the server and fills the specials.
  explicit ServerTokenizer(ServerTokenizerOptions opt, std::size_t num_special_to_add = 0,
                           std::optional<int> max_model_len = std::nullopt);

  // Each is one HTTP call; a failed call throws sb::UserError naming the URL and the status.
  std::vector<std::int32_t> encode(std::string_view text, bool add_special_tokens) const override;
  // vLLM's /detokenize has no skip_special_tokens: specials are always decoded (the flag is ignored).
  std::string decode(const std::vector<std::int32_t>& ids, bool skip_special_tokens = false) const override;
  std::size_t count(std::string_view text, bool add_special_tokens) const override;

  // Counts of every text, in order, with up to options.threads calls in flight. The first error
  // (by index, so the message does not depend on timing) is rethrown after all threads stop.
  std::vector<std::size_t> count_many(const std::vector<std::string_view>& texts,
                                      bool add_special_tokens = true) const;

  std::size_t vocab_size() const override { return 0; }  // unknown through the API: callers test for 0
  std::vector<std::int32_t> special_ids() const override { return {}; }  // unknown
  std::size_t num_special_tokens_to_add() const override { return num_special_to_add_; }
  std::string name() const override;  // "server:<model>" (or "server" without a model)
  std::optional<int> max_model_len() const { return max_model_len_; }

 private:
  TokenizeReply tokenize(std::string_view text, bool add_special_tokens) const;

  ServerTokenizerOptions opt_;
  std::size_t num_special_to_add_;
  std::optional<int> max_model_len_;
};

struct ServerTokenizerProbe {
  std::unique_ptr<ServerTokenizer> tokenizer;  // null when the server cannot tokenize
  std::string unavailable_reason;              // why, for the run's "lengths approximate" warning
};

// Tokenizes one short text with and without specials. 404/405, any other non-200 status, a body
// that is not a /tokenize reply and transport errors all mean "unavailable" (never thrown).
ServerTokenizerProbe probe_server_tokenizer_detailed(const ServerTokenizerOptions& opt);

// The same, nullptr when unavailable: how the run decides "lengths approximate".
std::unique_ptr<Tokenizer> probe_server_tokenizer(const Endpoint& endpoint, const HeaderList& headers,
                                                  std::string model, double timeout_s);

}  // namespace sb
