#include "tokenizer/bpe_model.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace sb::tok {
namespace {

using Ids = std::vector<std::int32_t>;

Ids encode(const BpeModel& m, std::string_view piece) {
  Ids out;
  m.encode_piece(piece, out);
  return out;
}

BpeConfig tiny() {
  BpeConfig c;
  c.vocab = {{"a", 0}, {"b", 1}, {"c", 2}, {"ab", 3}, {"bc", 4}, {"abc", 5}, {"<unk>", 6}};
  return c;
}

TEST(BpeModel, LowestRankMergesFirst) {
  BpeConfig c = tiny();
  c.merges = {{"b", "c"}, {"a", "b"}, {"ab", "c"}};
  const BpeModel m(c);
  // "b c" has rank 0, so "abc" -> a + bc; "ab c" never applies.
  EXPECT_EQ(encode(m, "abc"), (Ids{0, 4}));
  EXPECT_EQ(encode(m, "abab"), (Ids{3, 3}));
  EXPECT_EQ(encode(m, "abc"), (Ids{0, 4}));  // second time from the merge cache
}

TEST(BpeModel, LeftmostWinsAmongEqualRanks) {
  BpeConfig c;
  c.vocab = {{"a", 0}, {"aa", 1}};
  c.merges = {{"a", "a"}};
  const BpeModel m(c);
  EXPECT_EQ(encode(m, "aaa"), (Ids{1, 0}));
}

TEST(BpeModel, IgnoreMergesTakesWholeWordFromVocab) {
  BpeConfig c = tiny();
  c.merges = {{"b", "c"}, {"a", "b"}};
  c.ignore_merges = true;
  const BpeModel m(c);
  EXPECT_EQ(encode(m, "abc"), (Ids{5}));
}

TEST(BpeModel, UnknownCharactersFuseIntoOneUnk) {
  BpeConfig c = tiny();
  c.unk_token = "<unk>";
  c.fuse_unk = true;
  const BpeModel fused(c);
  EXPECT_EQ(encode(fused, "axyb"), (Ids{0, 6, 1}));
  c.fuse_unk = false;
  const BpeModel unfused(c);
  EXPECT_EQ(encode(unfused, "axyb"), (Ids{0, 6, 6, 1}));
}

TEST(BpeModel, ByteFallbackSpellsUnknownCharactersAsBytes) {
  BpeConfig c = tiny();
  c.byte_fallback = true;
  c.vocab.push_back({"<0xE4>", 10});
  c.vocab.push_back({"<0xBD>", 11});
  c.vocab.push_back({"<0xA0>", 12});
  const BpeModel m(c);
  EXPECT_EQ(encode(m, "a\xE4\xBD\xA0"), (Ids{0, 10, 11, 12}));  // "a你"
}

TEST(BpeModel, ByteLevelVocabIsKeyedByRawBytes) {
  BpeConfig c;
  c.byte_level = true;
  // "Ġ" is the ByteLevel spelling of ' '.
  c.vocab = {{"\xC4\xA0", 0}, {"h", 1}, {"i", 2}, {"\xC4\xA0h", 3}, {"\xC4\xA0hi", 4}};
  c.merges = {{"\xC4\xA0", "h"}, {"\xC4\xA0h", "i"}};
  const BpeModel m(c);
  EXPECT_EQ(encode(m, " hi"), (Ids{4}));
  EXPECT_EQ(m.token_to_id("\xC4\xA0hi"), 4);
  EXPECT_EQ(*m.id_to_token(4), "\xC4\xA0hi");
}

TEST(BpeModel, MergeWithUnknownTokenIsRejected) {
  BpeConfig c = tiny();
  c.merges = {{"c", "a"}};  // "ca" is not in the vocabulary
  EXPECT_THROW(BpeModel{c}, std::invalid_argument);
}

}  // namespace
}  // namespace sb::tok
