#include "tokenizer/added_vocab.hpp"

#include <gtest/gtest.h>

namespace sb::tok {
namespace {

std::string show_splits(std::string_view text, const std::vector<TextSplit>& splits) {
  std::string out;
  for (const auto& s : splits) {
    out += "[" + std::string(text.substr(s.begin, s.end - s.begin)) + (s.token_id >= 0 ? "=" + std::to_string(s.token_id) : "") + "]";
  }
  return out;
}

std::string run_added(const std::vector<AddedToken>& tokens, std::string_view text) {
  std::vector<TextSplit> splits;
  AddedVocab(tokens).split(text, splits);
  return show_splits(text, splits);
}

TEST(AddedVocab, LeftmostLongestMatch) {
  const std::vector<AddedToken> t = {{1, "<s>"}, {2, "<s>x"}, {3, "</s>"}};
  EXPECT_EQ(run_added(t, "a<s>xb</s>"), "[a][<s>x=2][b][</s>=3]");
  EXPECT_EQ(run_added(t, "<s><s>"), "[<s>=1][<s>=1]");
  EXPECT_EQ(run_added(t, "<s"), "[<s]");
}

TEST(AddedVocab, LstripAndRstripAbsorbWhitespace) {
  AddedToken mask{5, "<mask>"};
  mask.lstrip = mask.rstrip = true;
  EXPECT_EQ(run_added({mask}, "a  <mask> b"), "[a][  <mask> =5][b]");
}

TEST(AddedVocab, SingleWordRejectsMatchesInsideWords) {
  AddedToken word{7, "cat"};
  word.single_word = true;
  EXPECT_EQ(run_added({word}, "a cat concat cats"), "[a ][cat=7][ concat cats]");
}

}  // namespace
}  // namespace sb::tok
