#pragma once
// gzip decompression for vLLM's default *.pt.trace.json.gz. Compiled in only when the build defines
// SB_HAVE_ZLIB and links zlib (docs/trace.md); otherwise gzip_supported() is false and gunzip()
// refuses with a hint to run `gunzip -k`.
#include <string>
#include <string_view>

namespace sb::trace {

bool gzip_supported() noexcept;

// Whole-buffer decompression; a corrupt or truncated stream is a UserError naming `source`.
std::string gunzip(std::string_view data, std::string_view source);

}  // namespace sb::trace
