#pragma once
// Added tokens (special or not) are matched in the text before the model runs, leftmost-longest,
// honouring lstrip / rstrip / single_word. Tokens with normalized=true are matched on normalized
// text, the others on the raw input (the caller runs two AddedVocab passes, as HF does).
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace sb::tok {

struct AddedToken {
  std::int32_t id = 0;
  std::string content;
  bool special = false, lstrip = false, rstrip = false, single_word = false, normalized = false;
};

struct TextSplit {
  std::size_t begin = 0, end = 0;
  std::int32_t token_id = -1;  // -1: plain text for the normalizer / model
};

class AddedVocab {
 public:
  AddedVocab() = default;
  explicit AddedVocab(const std::vector<AddedToken>& tokens);  // the tokens of one pass

  bool empty() const noexcept { return nodes_.size() <= 1; }
  // Splits text into plain runs and matched tokens, in order. Empty plain runs are omitted.
  void split(std::string_view text, std::vector<TextSplit>& out) const;

 private:
  struct Node {
    std::vector<std::pair<unsigned char, std::int32_t>> children;  // sorted by byte
    std::int32_t token = -1;                                        // index into tokens_
  };
  // Longest token starting at pos: its index into tokens_ and end offset; -1 if none.
  std::int32_t longest_at(std::string_view text, std::size_t pos, std::size_t& end) const;
  bool accept(std::string_view text, const AddedToken& t, std::size_t& begin, std::size_t& end) const;

  std::array<bool, 256> first_byte_{};  // bytes that start some token: other positions are skipped fast
  std::vector<Node> nodes_{1};
  std::vector<AddedToken> tokens_;
};

}  // namespace sb::tok
