#include "tokenizer/normalizer.hpp"

#include <gtest/gtest.h>
#include <utf8proc.h>

#include <cstdint>
#include <cstdlib>
#include <random>
#include <utility>
#include <vector>

#include "tokenizer/utf8.hpp"

namespace sb::tok {
namespace {

using NormK = NormalizerStep::Kind;

NormalizerStep norm_step(NormK kind, std::string pattern = "", std::string content = "") {
  NormalizerStep s;
  s.kind = kind;
  s.pattern = std::move(pattern);
  s.content = std::move(content);
  return s;
}

std::string normalize(std::vector<NormalizerStep> steps, std::string_view in) {
  std::string out, scratch;
  Normalizer(std::move(steps)).apply(in, out, scratch);
  return out;
}

TEST(Normalizer, NfcComposesAndNfkcFoldsCompatibility) {
  EXPECT_EQ(normalize({norm_step(NormK::nfc)}, "e\xCC\x81"), "\xC3\xA9");     // e + U+0301 -> é
  EXPECT_EQ(normalize({norm_step(NormK::nfc)}, "\xE2\x84\xAB"), "\xC3\x85");  // U+212B ANGSTROM -> Å
  EXPECT_EQ(normalize({norm_step(NormK::nfkc)}, "\xEF\xAC\x81"), "fi");       // U+FB01 ligature
  EXPECT_EQ(normalize({norm_step(NormK::nfd)}, "\xC3\xA9"), "e\xCC\x81");
  EXPECT_EQ(normalize({norm_step(NormK::nfc)}, "plain ascii"), "plain ascii");
}

// The NFC fast path must be exact: every code point it accepts is a starter (ccc 0) that NFC
// maps to itself and that utf8proc's composition table never uses as a second element.
TEST(Normalizer, NfcQuickYesOnlyAcceptsStableStarters) {
  std::size_t accepted = 0;
  for (char32_t cp = 1; cp < 0x110000; ++cp) {
    if (cp >= 0xD800 && cp < 0xE000) continue;
    std::string one;
    append_utf8(one, cp);
    if (!nfc_quick_yes(one)) continue;
    ++accepted;
    const utf8proc_property_t* p = utf8proc_get_property(static_cast<utf8proc_int32_t>(cp));
    ASSERT_EQ(p->combining_class, 0) << std::hex << static_cast<std::uint32_t>(cp);
    ASSERT_TRUE(p->comb_index == UINT16_MAX || (p->comb_index & 0x8000) == 0) << std::hex << static_cast<std::uint32_t>(cp);
    ASSERT_EQ(normalize({norm_step(NormK::nfc)}, one), one) << std::hex << static_cast<std::uint32_t>(cp);
  }
  EXPECT_EQ(accepted, 0x2FFu + 0xBEu + 0x5200u + 0x2BA4u);  // U+0001-02FF, kana, CJK, Hangul
  EXPECT_TRUE(nfc_quick_yes("caf\xC3\xA9 \xE6\x97\xA5\xE6\x9C\xAC \xED\x95\x9C"));  // café 日本 한
  EXPECT_FALSE(nfc_quick_yes("e\xCC\x81"));        // e + U+0301
  EXPECT_FALSE(nfc_quick_yes("\xE3\x81\x8B\xE3\x82\x99"));  // か + U+3099 composes to が
  EXPECT_FALSE(nfc_quick_yes("\xE2\x84\xAB"));    // U+212B ANGSTROM SIGN decomposes
  // Hangul LV syllable + trailing jamo composes: the jamo keeps it on the utf8proc path.
  EXPECT_EQ(normalize({norm_step(NormK::nfc)}, "\xEA\xB0\x80\xE1\x86\xA8"), "\xEA\xB0\x81");  // 가 + ᆨ -> 각
}

std::string utf8proc_nfc(const std::string& in) {
  utf8proc_uint8_t* mapped = nullptr;
  const auto n = utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(in.data()),
                              static_cast<utf8proc_ssize_t>(in.size()), &mapped,
                              static_cast<utf8proc_option_t>(UTF8PROC_COMPOSE | UTF8PROC_STABLE));
  std::string out(reinterpret_cast<const char*>(mapped), static_cast<std::size_t>(n));
  std::free(mapped);
  return out;
}

// NFC only sends the runs that may change to utf8proc; the result must equal utf8proc on the
// whole text. Random short strings over characters that compose, reorder or decompose
// (marks, jamo, kana voicing, Indic two-part vowels, singletons) mixed with stable starters.
TEST(Normalizer, NfcByRunsEqualsWholeTextNfc) {
  const std::vector<std::pair<char32_t, char32_t>> ranges = {
      {0x41, 0x45}, {0xC0, 0xC5}, {0x300, 0x316}, {0x327, 0x328}, {0x338, 0x338}, {0x1100, 0x1102},
      {0x1161, 0x1163}, {0x11A8, 0x11AA}, {0xAC00, 0xAC02}, {0x304B, 0x304C}, {0x3099, 0x309A},
      {0x0B47, 0x0B47}, {0x0B3E, 0x0B3E}, {0x0B57, 0x0B57}, {0x0915, 0x0915}, {0x093C, 0x093C},
      {0x212B, 0x212B}, {0xF900, 0xF901}, {0x4E00, 0x4E01}, {0x0F71, 0x0F72}, {0x1F600, 0x1F600}};
  std::mt19937 rng(12345);
  std::uniform_int_distribution<std::size_t> pick(0, ranges.size() - 1), len(1, 8);
  int changed = 0;
  for (int n = 0; n < 20000; ++n) {
    std::string text;
    for (std::size_t k = len(rng); k > 0; --k) {
      const auto [lo, hi] = ranges[pick(rng)];
      append_utf8(text, lo + static_cast<char32_t>(rng() % (hi - lo + 1)));
    }
    const std::string expected = utf8proc_nfc(text);
    changed += expected != text;
    ASSERT_EQ(normalize({norm_step(NormK::nfc)}, text), expected) << text;
  }
  EXPECT_GT(changed, 5000);  // the generator really exercises composition
}

TEST(Normalizer, SentencePieceSequencePrependsAndReplaces) {
  NormalizerStep prepend = norm_step(NormK::prepend, "", "\xE2\x96\x81");
  NormalizerStep replace = norm_step(NormK::replace, " ", "\xE2\x96\x81");
  EXPECT_EQ(normalize({prepend, replace}, "Hello big world"),
            "\xE2\x96\x81Hello\xE2\x96\x81"
            "big\xE2\x96\x81world");
  EXPECT_EQ(normalize({prepend, replace}, ""), "");  // HF does not prepend to empty text
}

TEST(Normalizer, LowercaseAndStrip) {
  EXPECT_EQ(normalize({norm_step(NormK::lowercase)}, "\xC3\x80" "BC"), "\xC3\xA0" "bc");
  NormalizerStep strip = norm_step(NormK::strip);
  strip.strip_left = strip.strip_right = true;
  EXPECT_EQ(normalize({strip}, " \t x y \xE3\x80\x80"), "x y");
}

}  // namespace
}  // namespace sb::tok
