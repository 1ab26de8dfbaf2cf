#pragma once
// A HuggingFace tokenizer.json (BPE: byte-level and SentencePiece-style) with identical ids to the
// official `tokenizers` library. Thread-safe: encode/decode/count may be called concurrently.
//
// Example:
//   auto tok = sb::Tokenizer::load("path/to/model_dir");      // or .../tokenizer.json
//   std::vector<int> ids = tok->encode("Hello world", /*add_special_tokens=*/true);
//   std::string text = tok->decode(ids);
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sb {

class Tokenizer {
 public:
  virtual ~Tokenizer() = default;

  // Loads FILE (tokenizer.json) or DIR (containing tokenizer.json and optionally tokenizer_config.json).
  // Throws sb::UserError naming the file and the unsupported component / malformed field.
  static std::unique_ptr<Tokenizer> load(const std::filesystem::path& path);

  virtual std::vector<std::int32_t> encode(std::string_view text, bool add_special_tokens) const = 0;
  virtual std::string decode(const std::vector<std::int32_t>& ids, bool skip_special_tokens = false) const = 0;
  // Same as encode(text, add_special_tokens).size(), possibly cheaper.
  virtual std::size_t count(std::string_view text, bool add_special_tokens) const = 0;
  // count(text) when that is <= limit, else some value > limit: filters that drop long texts
  // (ShareGPT's 1024-token prompt limit) can stop tokenizing early.
  virtual std::size_t count_up_to(std::string_view text, bool add_special_tokens, std::size_t limit) const {
    (void)limit;
    return count(text, add_special_tokens);
  }

  virtual std::size_t vocab_size() const = 0;          // base vocabulary, without added tokens (HF get_vocab_size(false))
  virtual std::vector<std::int32_t> special_ids() const = 0;  // all special token ids (added tokens marked special)
  virtual std::size_t num_special_tokens_to_add() const = 0;  // tokens the post-processor adds to one sequence
  virtual std::string name() const = 0;                // e.g. the folder name, for results

  // From tokenizer_config.json beside tokenizer.json (nullopt when absent). Informational: encode()
  // follows tokenizer.json's post-processor exactly as HF `tokenizers` does.
  virtual std::optional<std::int32_t> bos_id() const { return std::nullopt; }
  virtual std::optional<std::int32_t> eos_id() const { return std::nullopt; }
  virtual std::optional<bool> add_bos_token() const { return std::nullopt; }
  // Vocabulary look-ups in tokenizer.json's spelling (added tokens included).
  virtual std::optional<std::int32_t> token_to_id(std::string_view) const { return std::nullopt; }
  virtual std::optional<std::string> id_to_token(std::int32_t) const { return std::nullopt; }
};

}  // namespace sb
