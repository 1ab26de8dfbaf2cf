#include "tokenizer/byte_level.hpp"

#include "tokenizer/utf8.hpp"

namespace sb::tok {

namespace {

struct Tables {
  std::array<char32_t, 256> to_char{};
  std::array<std::int16_t, 324> to_byte{};  // the alphabet's highest code point is U+0143

  Tables() {
    to_byte.fill(-1);
    char32_t next = 256;
    for (int b = 0; b < 256; ++b) {
      // Printable Latin-1 bytes keep their own code point; the rest are shifted to U+0100 + k.
      const bool printable = (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
      to_char[b] = printable ? static_cast<char32_t>(b) : next++;
      to_byte[to_char[b]] = static_cast<std::int16_t>(b);
    }
  }
};

const Tables& tables() {
  static const Tables t;
  return t;
}

}  // namespace

char32_t byte_to_char(std::uint8_t b) noexcept { return tables().to_char[b]; }

std::optional<std::uint8_t> char_to_byte(char32_t cp) noexcept {
  const auto& t = tables().to_byte;
  if (cp >= t.size() || t[cp] < 0) return std::nullopt;
  return static_cast<std::uint8_t>(t[cp]);
}

std::optional<std::string> byte_level_to_bytes(std::string_view token) {
  std::string out;
  out.reserve(token.size());
  std::size_t i = 0;
  while (i < token.size()) {
    const auto b = char_to_byte(next_code_point(token, i));
    if (!b) return std::nullopt;
    out.push_back(static_cast<char>(*b));
  }
  return out;
}

}  // namespace sb::tok
