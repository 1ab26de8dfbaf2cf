// ResponseReader + ResponseSink, the client's whole response path without the socket: bytes split
// into reads anywhere must give the same record as the same bytes in one read (status, outcome,
// tokens, text, usage, error), and nothing may crash or trip a sanitizer on any response.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "exec/response_reader.hpp"

namespace {

struct Seen {
  int step = 0;
  bool keep_alive = false;
  bool header_done = false;
  sb::RequestRecord rec;
};

Seen read_response(std::string_view bytes, const std::vector<std::size_t>& cuts, sb::Api api) {
  sb::StreamDecoder decoder{api};
  sb::ResponseSink sink{decoder, true};
  sb::ResponseReader reader;
  sb::ReadBuffer buf;
  Seen out;
  sink.begin(out.rec);
  reader.start();
  std::string error;
  std::size_t at = 0;
  auto step = sb::ResponseReader::Step::more;
  std::vector<std::size_t> ends = cuts;
  ends.push_back(bytes.size());
  for (const std::size_t end : ends) {
    if (end <= at || end > bytes.size()) continue;
    const std::string_view piece = bytes.substr(at, end - at);
    at = end;
    std::memcpy(buf.prepare(piece.size()).data(), piece.data(), piece.size());
    buf.commit(piece.size());
    step = reader.on_read(buf, sink, out.rec, 1, error);  // one time for all: stamps must not differ
    if (step != sb::ResponseReader::Step::more) break;
  }
  if (step == sb::ResponseReader::Step::done) {
    sink.on_complete(1);
    out.keep_alive = reader.keep_alive();
  } else if (step == sb::ResponseReader::Step::malformed) {
    if (!error.empty()) sink.on_transport_failure(sb::Outcome::malformed, "bad HTTP response: " + error);
  } else if (reader.end_at_eof()) {
    sink.on_complete(1);
  } else {
    sink.on_transport_failure(sb::Outcome::dropped, "connection closed");
  }
  out.step = static_cast<int>(step);
  out.header_done = reader.header_done();
  return out;
}

bool same(const Seen& a, const Seen& b) {
  // Beast checks the fields of a header as they arrive only in its first put; after a need_more it
  // waits for the header's end. So a header with a bad byte that never ends is "bad value" in one
  // read and "closed before the header ended" in pieces: the request fails either way.
  // Likewise its header limit (64 KiB, response_reader.cpp) is checked only after a need_more.
  const bool limit = a.rec.error.find("header limit") != std::string::npos ||
                     b.rec.error.find("header limit") != std::string::npos;
  if (limit) return a.rec.outcome != sb::Outcome::ok && b.rec.outcome != sb::Outcome::ok;
  if (!a.header_done || !b.header_done) {
    return a.header_done == b.header_done && a.rec.outcome != sb::Outcome::ok && b.rec.outcome != sb::Outcome::ok;
  }
  return a.step == b.step && a.keep_alive == b.keep_alive && a.rec.outcome == b.rec.outcome &&
         a.rec.http_status == b.rec.http_status && a.rec.token_ns == b.rec.token_ns &&
         a.rec.generated_text == b.rec.generated_text && a.rec.output_tokens == b.rec.output_tokens &&
         a.rec.prompt_tokens == b.rec.prompt_tokens && a.rec.error == b.rec.error &&
         a.rec.first_byte_ns == b.rec.first_byte_ns;
}

// SB_FUZZ_EXPLAIN=1 ./http_response_fuzz CRASH: what differed, for triage.
void explain(const Seen& a, const Seen& b) {
  if (std::getenv("SB_FUZZ_EXPLAIN") == nullptr) return;
  for (const Seen* s : {&a, &b}) {
    std::fprintf(stderr, "step=%d keep=%d outcome=%d status=%d tokens=%zu out=%d prompt=%d first=%lld error=[%s] text=[%s]\n",
                 s->step, s->keep_alive, static_cast<int>(s->rec.outcome), s->rec.http_status, s->rec.token_ns.size(),
                 s->rec.output_tokens, s->rec.prompt_tokens, static_cast<long long>(s->rec.first_byte_ns),
                 s->rec.error.c_str(), s->rec.generated_text.c_str());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  // The first two bytes choose the split points and the API; the rest is the response.
  const std::size_t step = 1 + data[0] % 31, offset = data[1] >> 1;
  const sb::Api api = (data[1] & 1) != 0 ? sb::Api::chat : sb::Api::completions;
  const std::string_view bytes(reinterpret_cast<const char*>(data) + 2, size - 2);
  std::vector<std::size_t> cuts;
  for (std::size_t c = offset % (step + 1); c < bytes.size(); c += step) cuts.push_back(c);
  const Seen whole = read_response(bytes, {}, api), split = read_response(bytes, cuts, api);
  if (!same(whole, split)) {
    explain(whole, split);
    __builtin_trap();
  }
  return 0;
}
