#pragma once
// HF pre-tokenizers: Split (PCRE2), ByteLevel, Metaspace, Digits and Sequence (a flat list of steps).
// Pieces are byte ranges into an owned buffer; ByteLevel's byte->character mapping is not applied
// because the BPE vocabulary is converted to raw bytes at load time instead.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/regex.hpp"

namespace sb::tok {

enum class SplitBehavior { isolated, removed, merged_with_previous, merged_with_next, contiguous };

struct PreTokenizerStep {
  enum class Kind { split, byte_level, metaspace, digits };
  Kind kind = Kind::split;
  std::shared_ptr<const Regex> regex;  // split; byte_level with use_regex
  SplitBehavior behavior = SplitBehavior::isolated;
  bool invert = false;             // split
  bool add_prefix_space = false;   // byte_level
  std::string replacement;         // metaspace ("▁")
  enum class Prepend { always, first, never } prepend = Prepend::always;  // metaspace
  bool split_on_replacement = true;  // metaspace
  bool individual_digits = false;    // digits
};

struct Pieces {
  std::string text;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> spans;  // [begin, end) into text
};

class PreTokenizer {
 public:
  PreTokenizer() = default;
  explicit PreTokenizer(std::vector<PreTokenizerStep> steps) : steps_(std::move(steps)) {}

  // Splits `in` into pieces. `at_input_start` tells Metaspace's "first" scheme whether this segment
  // begins the whole input. `scratch` is reused storage.
  void apply(std::string_view in, bool at_input_start, Pieces& out, Pieces& scratch) const;

 private:
  std::vector<PreTokenizerStep> steps_;
};

// GPT-2's pattern, used by ByteLevel when use_regex is true.
const std::string& gpt2_pattern();

}  // namespace sb::tok
