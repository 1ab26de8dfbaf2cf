#pragma once
// Token counts from the server itself when no --tokenizer is given: POST {base}/tokenize and
// {base}/detokenize in the engine's own shape (tokenize_dialect.hpp: vLLM's, which
// `servebench sim --tokenizer` serves too, SGLang's, llama.cpp's, TGI's). A non-empty text counted
// as 0 tokens is an error naming the engine and the URL, never a length. Cold path only (dataset loading, before any stage): every call is one blocking
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
#include "target/engine.hpp"
#include "target/tokenize_dialect.hpp"
#include "tokenizer/tokenizer.hpp"

namespace sb {

// The request and reply shapes of each engine: target/tokenize_dialect.hpp.

// ---- the tokenizer ----

struct ServerTokenizerOptions {
  Endpoint endpoint;
  HeaderList headers;        // Authorization and --header pairs, as the requests send them
  std::string model;         // served model id ("" = let the server pick)
  Engine engine = Engine::openai;  // whose /tokenize shape to speak (openai: vLLM's)
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
  // TGI has no /detokenize: a UserError.
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
