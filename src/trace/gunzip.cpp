#include "trace/gunzip.hpp"

#include <fmt/format.h>

#include "core/error.hpp"

#ifdef SB_HAVE_ZLIB
#include <zlib.h>
#endif

namespace sb::trace {

#ifdef SB_HAVE_ZLIB

bool gzip_supported() noexcept { return true; }

std::string gunzip(std::string_view data, std::string_view source) {
  z_stream zs{};
  constexpr int kGzipWindow = 16 + MAX_WBITS;  // 16: expect a gzip header, not raw zlib
  if (inflateInit2(&zs, kGzipWindow) != Z_OK) throw UserError(fmt::format("{}: zlib init failed", source));
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs.avail_in = static_cast<uInt>(data.size());
  std::string out;
  char chunk[1 << 16];
  int rc = Z_OK;
  while (rc == Z_OK) {
    zs.next_out = reinterpret_cast<Bytef*>(chunk);
    zs.avail_out = sizeof(chunk);
    rc = inflate(&zs, Z_NO_FLUSH);
    out.append(chunk, sizeof(chunk) - zs.avail_out);
    if (rc == Z_BUF_ERROR && zs.avail_in == 0) break;  // input ended before the stream did
  }
  inflateEnd(&zs);
  if (rc != Z_STREAM_END) throw UserError(fmt::format("{}: corrupt or truncated gzip data", source));
  return out;
}

#else

bool gzip_supported() noexcept { return false; }

std::string gunzip(std::string_view, std::string_view source) {
  throw UserError(fmt::format("{}: gzip-compressed trace: run 'gunzip -k' first (this build reads plain JSON)", source));
}

#endif

}  // namespace sb::trace
