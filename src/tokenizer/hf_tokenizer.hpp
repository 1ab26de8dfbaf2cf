#pragma once
// The tokenizer.json pipeline: added tokens -> normalizer -> pre-tokenizer -> BPE -> post-processor,
// and decode through the decoder chain. Built by the loader (tokenizer_json.cpp) from parsed parts.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "tokenizer/added_vocab.hpp"
#include "tokenizer/bpe_model.hpp"
#include "tokenizer/decoder.hpp"
#include "tokenizer/normalizer.hpp"
#include "tokenizer/pre_tokenizer.hpp"
#include "tokenizer/tokenizer.hpp"

namespace sb::tok {

// One element of TemplateProcessing's "single" template: the sequence itself or fixed special ids.
struct TemplatePiece {
  bool is_sequence = false;
  std::vector<std::int32_t> ids;
};

struct TokenizerParts {
  std::string name;
  std::vector<AddedToken> added_tokens;
  Normalizer normalizer;
  PreTokenizer pre_tokenizer;
  std::unique_ptr<BpeModel> model;
  std::optional<std::vector<TemplatePiece>> single_template;  // nullopt: no special tokens added
  Decoder decoder;
  std::optional<std::int32_t> bos_id, eos_id;
  std::optional<bool> add_bos_token;
};

class HfTokenizer final : public Tokenizer {
 public:
  explicit HfTokenizer(TokenizerParts parts);

  std::vector<std::int32_t> encode(std::string_view text, bool add_special_tokens) const override;
  std::string decode(const std::vector<std::int32_t>& ids, bool skip_special_tokens) const override;
  std::size_t count(std::string_view text, bool add_special_tokens) const override;
  std::size_t count_up_to(std::string_view text, bool add_special_tokens, std::size_t limit) const override;
  std::size_t vocab_size() const override { return parts_.model->vocab_size(); }
  std::vector<std::int32_t> special_ids() const override;
  std::size_t num_special_tokens_to_add() const override;
  std::string name() const override { return parts_.name; }
  std::optional<std::int32_t> bos_id() const override { return parts_.bos_id; }
  std::optional<std::int32_t> eos_id() const override { return parts_.eos_id; }
  std::optional<bool> add_bos_token() const override { return parts_.add_bos_token; }
  std::optional<std::int32_t> token_to_id(std::string_view token) const override;
  std::optional<std::string> id_to_token(std::int32_t id) const override;

 private:
  // Appends the ids of text (without post-processing) to out; may stop once out.size() > limit.
  void encode_into(std::string_view text, std::vector<std::int32_t>& out, std::size_t limit = SIZE_MAX) const;
  void encode_plain(std::string_view text, bool at_input_start, std::vector<std::int32_t>& out,
                    std::size_t limit) const;

  TokenizerParts parts_;
  AddedVocab raw_added_, normalized_added_;
  std::unordered_map<std::int32_t, std::size_t> added_by_id_;  // id -> index into parts_.added_tokens
  std::unordered_map<std::string, std::int32_t> added_by_content_;
};

}  // namespace sb::tok
