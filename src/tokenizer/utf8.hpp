#pragma once
// Small UTF-8 helpers shared by the tokenizer stages. All functions are allocation-free except the
// ones that return or append to a std::string.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace sb::tok {

// Length of the UTF-8 sequence that starts with lead byte `b` (1 for stray continuation bytes).
inline std::size_t utf8_len(unsigned char b) noexcept {
  if (b < 0x80) return 1;
  if ((b >> 5) == 0x6) return 2;
  if ((b >> 4) == 0xE) return 3;
  if ((b >> 3) == 0x1E) return 4;
  return 1;
}

// Decodes the code point at s[i] (s must be valid UTF-8) and advances i.
char32_t next_code_point(std::string_view s, std::size_t& i) noexcept;

void append_utf8(std::string& out, char32_t cp);

// Length of the longest valid UTF-8 prefix of s.
std::size_t valid_utf8_prefix(std::string_view s) noexcept;

// Appends s, replacing each maximal invalid subsequence with U+FFFD exactly as Rust's
// String::from_utf8_lossy does (HF decode output depends on it).
void append_utf8_lossy(std::string& out, std::string_view s);

bool is_ascii(std::string_view s) noexcept;

// Rust's char::is_whitespace (Unicode White_Space), used by added-token lstrip/rstrip.
bool is_unicode_whitespace(char32_t cp) noexcept;

}  // namespace sb::tok
