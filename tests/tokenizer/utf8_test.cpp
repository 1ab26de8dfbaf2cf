#include "tokenizer/utf8.hpp"

#include <gtest/gtest.h>

namespace sb::tok {
namespace {

const std::string kFffd = "\xEF\xBF\xBD";

std::string lossy(std::string_view s) {
  std::string out;
  append_utf8_lossy(out, s);
  return out;
}

TEST(Utf8, LossyReplacesMaximalSubpartsLikeRust) {
  EXPECT_EQ(lossy("abc"), "abc");
  EXPECT_EQ(lossy("a\xFF" "b"), "a" + kFffd + "b");
  // A truncated 4-byte sequence is one maximal subpart: one U+FFFD (Rust: "\u{FFFD}").
  EXPECT_EQ(lossy("\xF0\x90\x80"), kFffd);
  // E0 80: 80 is not a valid second byte after E0, so two replacements.
  EXPECT_EQ(lossy("\xE0\x80"), kFffd + kFffd);
  // Surrogates encoded in UTF-8 (ED A0 80) are invalid: three replacements.
  EXPECT_EQ(lossy("\xED\xA0\x80"), kFffd + kFffd + kFffd);
  EXPECT_EQ(lossy("\xC3\xA9"), "\xC3\xA9");
}

TEST(Utf8, ValidPrefixStopsAtFirstBadByte) {
  EXPECT_EQ(valid_utf8_prefix("h\xC3\xA9llo"), 6u);
  EXPECT_EQ(valid_utf8_prefix("ab\xC3"), 2u);
  EXPECT_EQ(valid_utf8_prefix("\xF4\x90\x80\x80"), 0u);  // above U+10FFFF
}

TEST(Utf8, RoundTripsCodePoints) {
  for (char32_t cp : {U'a', U'\u00e9', U'\u4f60', U'\U0001F600'}) {
    std::string s;
    append_utf8(s, cp);
    std::size_t i = 0;
    EXPECT_EQ(next_code_point(s, i), cp);
    EXPECT_EQ(i, s.size());
  }
}

TEST(Utf8, WhitespaceIsUnicodeWhiteSpace) {
  EXPECT_TRUE(is_unicode_whitespace(U' '));
  EXPECT_TRUE(is_unicode_whitespace(U'\u3000'));
  EXPECT_TRUE(is_unicode_whitespace(U'\u0085'));
  EXPECT_FALSE(is_unicode_whitespace(U'\u200b'));  // zero-width space is not White_Space
  EXPECT_FALSE(is_unicode_whitespace(U'x'));
}

}  // namespace
}  // namespace sb::tok
