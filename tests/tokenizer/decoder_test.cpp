#include "tokenizer/decoder.hpp"

#include <gtest/gtest.h>

namespace sb::tok {
namespace {

using DecK = DecoderStep::Kind;
const std::string kMeta = "\xE2\x96\x81";  // ▁

DecoderStep dec_step(DecK kind, std::string pattern = "", std::string content = "") {
  DecoderStep s;
  s.kind = kind;
  s.pattern = std::move(pattern);
  s.content = std::move(content);
  return s;
}

TEST(Decoder, Llama2ChainReplacesFusesAndStrips) {
  DecoderStep replace = dec_step(DecK::replace, kMeta, " ");
  DecoderStep strip = dec_step(DecK::strip, "", " ");
  strip.strip_start = 1;
  const Decoder d({replace, dec_step(DecK::byte_fallback), dec_step(DecK::fuse), strip});
  EXPECT_EQ(d.decode({kMeta + "Hello", kMeta + "world"}), "Hello world");
  // <0xE4><0xBD><0xA0> is "你"; an incomplete run gives one U+FFFD per byte.
  EXPECT_EQ(d.decode({"<0xE4>", "<0xBD>", "<0xA0>"}), "\xE4\xBD\xA0");
  EXPECT_EQ(d.decode({"a", "<0xE4>", "<0xBD>", "b"}), "a\xEF\xBF\xBD\xEF\xBF\xBD" "b");
}

TEST(Decoder, ByteLevelMapsAlphabetBackAndRepairsUtf8) {
  const Decoder d({dec_step(DecK::byte_level)});
  EXPECT_EQ(d.decode({"Hello", "\xC4\xA0world"}), "Hello world");
  EXPECT_EQ(d.decode({"\xC3\xA4"}), "\xEF\xBF\xBD");  // byte E4 alone is invalid UTF-8
}

TEST(Decoder, MetaspaceDropsEveryReplacementOfTheFirstToken) {
  DecoderStep ms = dec_step(DecK::metaspace);
  ms.replacement = kMeta;
  // Known answers from HF tokenizers 0.23.2: metaspaceDecoder('▁', 'always' | 'never').decode(...)
  EXPECT_EQ(Decoder({ms}).decode({kMeta + kMeta + "Hey", kMeta + "friend", "a" + kMeta + "b"}), "Hey frienda b");
  ms.metaspace_prepend = false;
  EXPECT_EQ(Decoder({ms}).decode({kMeta + kMeta + "Hey", kMeta + "friend"}), "  Hey friend");
}

TEST(Decoder, StripRemovesUpToStartCharactersPerToken) {
  DecoderStep strip = dec_step(DecK::strip, "", " ");
  strip.strip_start = 1;
  // HF: stripDecoder(' ', 1, 0).decode(['  a  ', ' b']) == " a  b"
  EXPECT_EQ(Decoder({strip}).decode({"  a  ", " b"}), " a  b");
}

TEST(Decoder, NoDecoderJoinsWithSpaces) {
  EXPECT_EQ(Decoder().decode({"a", "b"}), "a b");
}

}  // namespace
}  // namespace sb::tok
