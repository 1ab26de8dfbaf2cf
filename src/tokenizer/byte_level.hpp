#pragma once
// GPT-2's reversible byte <-> printable-character map used by ByteLevel pre-tokenizers and decoders.
// We never materialise the mapped text on the encode path: vocab keys are converted back to raw bytes
// at load time, so encode works on bytes directly.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace sb::tok {

// Code point that byte b is shown as (e.g. ' ' -> U+0120 'Ġ').
char32_t byte_to_char(std::uint8_t b) noexcept;

// Inverse of byte_to_char; nullopt for characters outside the 256-character alphabet.
std::optional<std::uint8_t> char_to_byte(char32_t cp) noexcept;

// Converts a ByteLevel-alphabet string back to raw bytes; nullopt if a character is outside it.
std::optional<std::string> byte_level_to_bytes(std::string_view token);

}  // namespace sb::tok
