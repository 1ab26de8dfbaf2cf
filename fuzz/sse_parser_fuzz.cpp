// SseParser: bytes split anywhere must give the same events as the whole stream at once (the
// property the every-byte-split unit test checks on fixed samples, here on arbitrary input).
#include <cstdint>
#include <string>
#include <vector>

#include "protocol/sse_parser.hpp"

namespace {

std::vector<std::string> events_of(std::string_view bytes, const std::vector<std::size_t>& cuts) {
  sb::SseParser p;
  std::vector<std::string> out;
  const auto on_event = [&](const sb::SseParser::Event& e) { out.push_back(std::string(e.event) + '|' + std::string(e.data)); };
  std::size_t at = 0;
  for (const std::size_t cut : cuts) {
    if (cut <= at || cut >= bytes.size()) continue;
    p.feed(bytes.substr(at, cut - at), on_event);
    at = cut;
  }
  p.feed(bytes.substr(at), on_event);
  p.finish(on_event);
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  // The first two bytes choose the split points; the rest is the stream.
  const std::size_t step = 1 + data[0] % 7, offset = data[1];
  const std::string_view bytes(reinterpret_cast<const char*>(data) + 2, size - 2);
  std::vector<std::size_t> cuts;
  for (std::size_t c = offset % (step + 1); c < bytes.size(); c += step) cuts.push_back(c);
  if (events_of(bytes, {}) != events_of(bytes, cuts)) __builtin_trap();
  return 0;
}
