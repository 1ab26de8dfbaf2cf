#pragma once
// Test tokenizers with hand-checkable ids (in sb::dataset, the folder's namespace: a namespace named
// `testing` would hide GoogleTest's in the unity-built test executable).
//  ByteTokenizer:    <unk>=0 <s>=1 </s>=2, byte b -> b + 3; adds <s> with special tokens on.
//  MergingTokenizer: the same, plus id 259 = "ab", merged greedily when encoding, so decode then
//                    encode can shorten a sequence (what the random dataset's fix loop corrects).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/tokenizer.hpp"

namespace sb::dataset {

class ByteTokenizer : public Tokenizer {
 public:
  std::vector<std::int32_t> encode(std::string_view text, bool add_special_tokens) const override {
    std::vector<std::int32_t> ids;
    if (add_special_tokens) ids.push_back(1);
    for (std::size_t i = 0; i < text.size(); ++i) {
      if (merges_ && i + 1 < text.size() && text[i] == 'a' && text[i + 1] == 'b') {
        ids.push_back(259);
        ++i;
      } else {
        ids.push_back(static_cast<unsigned char>(text[i]) + 3);
      }
    }
    return ids;
  }
  std::string decode(const std::vector<std::int32_t>& ids, bool skip_special_tokens) const override {
    static const char* const kSpecial[] = {"<unk>", "<s>", "</s>"};
    std::string out;
    for (std::int32_t id : ids) {
      if (id < 3) {
        if (!skip_special_tokens) out += kSpecial[id];
      } else if (id == 259) {
        out += "ab";
      } else {
        out += static_cast<char>(id - 3);
      }
    }
    return out;
  }
  std::size_t count(std::string_view text, bool add_special_tokens) const override {
    return encode(text, add_special_tokens).size();
  }
  std::size_t vocab_size() const override { return merges_ ? 260 : 259; }
  std::vector<std::int32_t> special_ids() const override { return {0, 1, 2}; }
  std::size_t num_special_tokens_to_add() const override { return 1; }
  std::string name() const override { return merges_ ? "merging" : "bytes"; }

 protected:
  bool merges_ = false;
};

class MergingTokenizer : public ByteTokenizer {
 public:
  MergingTokenizer() { merges_ = true; }
};

}  // namespace sb::dataset
