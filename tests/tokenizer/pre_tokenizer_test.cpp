#include "tokenizer/pre_tokenizer.hpp"

#include <gtest/gtest.h>

namespace sb::tok {
namespace {

using PreK = PreTokenizerStep::Kind;

std::vector<std::string> pre_split(std::vector<PreTokenizerStep> steps, std::string_view in, bool at_start = true) {
  Pieces out, scratch;
  PreTokenizer(std::move(steps)).apply(in, at_start, out, scratch);
  std::vector<std::string> pieces;
  for (auto [b, e] : out.spans) pieces.push_back(out.text.substr(b, e - b));
  return pieces;
}

PreTokenizerStep split(const std::string& pattern, SplitBehavior b, bool literal = false) {
  PreTokenizerStep s;
  s.kind = PreK::split;
  s.regex = std::make_shared<const Regex>(pattern, literal);
  s.behavior = b;
  return s;
}

using V = std::vector<std::string>;

TEST(PreTokenizer, SplitBehaviorsFoldLikeHf) {
  EXPECT_EQ(pre_split({split("-", SplitBehavior::isolated, true)}, "a-b--c"), (V{"a", "-", "b", "-", "-", "c"}));
  EXPECT_EQ(pre_split({split("-", SplitBehavior::removed, true)}, "a-b--c"), (V{"a", "b", "c"}));
  EXPECT_EQ(pre_split({split("-", SplitBehavior::merged_with_previous, true)}, "a-b--c"), (V{"a-", "b-", "-", "c"}));
  EXPECT_EQ(pre_split({split("-", SplitBehavior::merged_with_next, true)}, "a-b--c"), (V{"a", "-b", "-", "-c"}));
  EXPECT_EQ(pre_split({split("-", SplitBehavior::contiguous, true)}, "a-b--c"), (V{"a", "-", "b", "--", "c"}));
}

TEST(PreTokenizer, Llama3RegexSplitsDigitsContractionsAndSpaces) {
  const std::string llama3 =
      R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
  EXPECT_EQ(pre_split({split(llama3, SplitBehavior::isolated)}, "I'M fine  12345!\n\nok"),
            (V{"I", "'M", " fine", " ", " ", "123", "45", "!\n\n", "ok"}));
  EXPECT_EQ(pre_split({split(llama3, SplitBehavior::isolated)}, "\xE4\xBD\xA0\xE5\xA5\xBD world"),
            (V{"\xE4\xBD\xA0\xE5\xA5\xBD", " world"}));
}

TEST(PreTokenizer, ByteLevelAddsPrefixSpaceAndUsesGpt2Regex) {
  PreTokenizerStep bl;
  bl.kind = PreK::byte_level;
  bl.add_prefix_space = true;
  bl.regex = std::make_shared<const Regex>(gpt2_pattern(), false);
  EXPECT_EQ(pre_split({bl}, "Hello world's"), (V{" Hello", " world", "'s"}));
}

TEST(PreTokenizer, MetaspaceReplacesAndSplitsBeforeEachSpace) {
  PreTokenizerStep ms;
  ms.kind = PreK::metaspace;
  ms.replacement = "\xE2\x96\x81";
  const std::string m = "\xE2\x96\x81";
  EXPECT_EQ(pre_split({ms}, "Hey friend"), (V{m + "Hey", m + "friend"}));
  // HF 0.23.2 metaspacePreTokenizer('▁', 'always', true).preTokenizeString("Hey  friend ▁x")
  EXPECT_EQ(pre_split({ms}, "Hey  friend " + m + "x"), (V{m + "Hey", m, m + "friend", m, m + "x"}));
  ms.prepend = PreTokenizerStep::Prepend::first;
  EXPECT_EQ(pre_split({ms}, "Hey", /*at_start=*/false), (V{"Hey"}));
}

TEST(PreTokenizer, DigitsIndividualOrContiguous) {
  PreTokenizerStep d;
  d.kind = PreK::digits;
  EXPECT_EQ(pre_split({d}, "ab123c4"), (V{"ab", "123", "c", "4"}));
  d.individual_digits = true;
  EXPECT_EQ(pre_split({d}, "ab123c4"), (V{"ab", "1", "2", "3", "c", "4"}));
}

}  // namespace
}  // namespace sb::tok
