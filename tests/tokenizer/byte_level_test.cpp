#include "tokenizer/byte_level.hpp"

#include <gtest/gtest.h>

namespace sb::tok {
namespace {

TEST(ByteLevel, KnownGpt2Characters) {
  EXPECT_EQ(byte_to_char(' '), U'\u0120');   // Ġ
  EXPECT_EQ(byte_to_char('\n'), U'\u010A');  // Ċ
  EXPECT_EQ(byte_to_char('a'), U'a');
  EXPECT_EQ(byte_to_char(0x00), U'\u0100');
  EXPECT_EQ(byte_to_char(0xAD), U'\u0143');  // the last shifted byte
  EXPECT_EQ(byte_to_char(0xFF), U'\u00FF');
}

TEST(ByteLevel, InverseCoversExactlyTheAlphabet) {
  for (int b = 0; b < 256; ++b) EXPECT_EQ(char_to_byte(byte_to_char(static_cast<std::uint8_t>(b))), b);
  EXPECT_FALSE(char_to_byte(U' ').has_value());  // space itself is not in the alphabet
  EXPECT_FALSE(char_to_byte(U'\u4f60').has_value());
}

TEST(ByteLevel, TokenToBytes) {
  EXPECT_EQ(byte_level_to_bytes("\xC4\xA0Hello"), " Hello");           // "ĠHello"
  EXPECT_EQ(byte_level_to_bytes("\xC3\xA4\xC2\xBD\xC5\x82"), "\xE4\xBD\xA0");  // "ä½ł" = 你
  EXPECT_FALSE(byte_level_to_bytes("a b").has_value());
}

}  // namespace
}  // namespace sb::tok
