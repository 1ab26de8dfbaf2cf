#include "tokenizer/normalizer.hpp"

#include <gtest/gtest.h>

namespace sb::tok {
namespace {

using K = NormalizerStep::Kind;

NormalizerStep step(K kind, std::string pattern = "", std::string content = "") {
  NormalizerStep s;
  s.kind = kind;
  s.pattern = std::move(pattern);
  s.content = std::move(content);
  return s;
}

std::string run(std::vector<NormalizerStep> steps, std::string_view in) {
  std::string out, scratch;
  Normalizer(std::move(steps)).apply(in, out, scratch);
  return out;
}

TEST(Normalizer, NfcComposesAndNfkcFoldsCompatibility) {
  EXPECT_EQ(run({step(K::nfc)}, "e\xCC\x81"), "\xC3\xA9");               // e + U+0301 -> é
  EXPECT_EQ(run({step(K::nfc)}, "\xE2\x84\xAB"), "\xC3\x85");             // U+212B ANGSTROM -> Å
  EXPECT_EQ(run({step(K::nfkc)}, "\xEF\xAC\x81"), "fi");                  // U+FB01 ligature
  EXPECT_EQ(run({step(K::nfd)}, "\xC3\xA9"), "e\xCC\x81");
  EXPECT_EQ(run({step(K::nfc)}, "plain ascii"), "plain ascii");
}

TEST(Normalizer, SentencePieceSequencePrependsAndReplaces) {
  NormalizerStep prepend = step(K::prepend, "", "\xE2\x96\x81");
  NormalizerStep replace = step(K::replace, " ", "\xE2\x96\x81");
  EXPECT_EQ(run({prepend, replace}, "Hello big world"), "\xE2\x96\x81Hello\xE2\x96\x81" "big\xE2\x96\x81world");
  EXPECT_EQ(run({prepend, replace}, ""), "");  // HF does not prepend to empty text
}

TEST(Normalizer, LowercaseAndStrip) {
  EXPECT_EQ(run({step(K::lowercase)}, "\xC3\x80" "BC"), "\xC3\xA0" "bc");
  NormalizerStep strip = step(K::strip);
  strip.strip_left = strip.strip_right = true;
  EXPECT_EQ(run({strip}, " \t x y \xE3\x80\x80"), "x y");
}

}  // namespace
}  // namespace sb::tok
