// SseParser: bytes split anywhere must give the same events as the whole stream at once (the
// property the every-byte-split unit test checks on fixed samples, here on arbitrary input). The
// split run also lets a ChunkShape take whole events where they lie, as the client does
// (ResponseSink: the shape learnt from the stream's own chunks, ChunkShape::match_event): what it
// takes must be the events the parser alone gives, with their payloads.
#include <cstdint>
#include <string>
#include <vector>

#include "protocol/chunk_shape.hpp"
#include "protocol/sse_parser.hpp"
#include "protocol/stream_decoder.hpp"

namespace {

// The payload of a whole event match_event took: after "data:" and one space, before the blank line.
std::string payload_of(std::string_view event) {
  event.remove_prefix(5);
  if (event.starts_with(' ')) event.remove_prefix(1);
  event.remove_suffix(event.ends_with("\r\n\r\n") ? 4 : 2);
  return std::string(event);
}

std::vector<std::string> events_of(std::string_view bytes, const std::vector<std::size_t>& cuts, bool shaped) {
  static sb::StreamDecoder decoder(sb::Api::completions);
  sb::ChunkShape shape;  // learnt from this stream's chunks only
  sb::SseParser p;
  std::vector<std::string> out;
  const auto on_event = [&](const sb::SseParser::Event& e) {
    out.push_back(std::string(e.event) + '|' + std::string(e.data));
    sb::ChunkInfo info;
    if (shaped) decoder.decode_chunk(e.data, info, shape);
  };
  const auto take_whole = [&](std::string_view rest) -> std::size_t {
    std::string_view text;
    const std::size_t n = shaped ? shape.match_event(rest, text) : 0;
    if (n > 0) out.push_back('|' + payload_of(rest.substr(0, n)));
    return n;
  };
  std::size_t at = 0;
  for (const std::size_t cut : cuts) {
    if (cut <= at || cut >= bytes.size()) continue;
    p.feed(bytes.substr(at, cut - at), on_event, take_whole);
    at = cut;
  }
  p.feed(bytes.substr(at), on_event, take_whole);
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
  const std::vector<std::string> whole = events_of(bytes, {}, false);
  if (whole != events_of(bytes, cuts, false)) __builtin_trap();
  if (whole != events_of(bytes, cuts, true) || whole != events_of(bytes, {}, true)) __builtin_trap();
  return 0;
}
