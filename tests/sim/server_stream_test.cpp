#include "sim/server_stream.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <vector>

#include "protocol/sse_parser.hpp"
#include "protocol/stream_decoder.hpp"

namespace sb::sim {
namespace {

struct Parsed {
  std::string head;
  std::string body;      // de-chunked
  bool complete = false; // saw the last chunk
  std::vector<std::string> events;
};

// A strict decoder of the chunked framing written by the server (independent of the code under test).
Parsed parse_response(const std::string& raw) {
  Parsed p;
  const auto head_end = raw.find("\r\n\r\n");
  p.head = raw.substr(0, head_end + 4);
  std::size_t at = head_end + 4;
  while (at < raw.size()) {
    const auto line_end = raw.find("\r\n", at);
    const std::size_t len = std::stoul(raw.substr(at, line_end - at), nullptr, 16);
    if (len == 0) {
      p.complete = raw.compare(line_end, 4, "\r\n\r\n") == 0;
      break;
    }
    p.body += raw.substr(line_end + 2, len);
    EXPECT_EQ(raw.compare(line_end + 2 + len, 2, "\r\n"), 0);
    at = line_end + 2 + len + 2;
  }
  SseParser sse;
  sse.feed(p.body, [&](const SseParser::Event& e) { p.events.emplace_back(e.data); });
  return p;
}

StreamSetup setup(Api api, bool include_usage, bool usage_in_last, FaultPlan fault = {}) {
  return {api, true, include_usage, usage_in_last, "id-1", "m", 0, 10, 3, 77, fault};
}

std::string run(StreamState& s, int tokens, bool last_finishes = true) {
  std::string raw;
  s.begin(raw, true);
  for (int i = 0; i < tokens; ++i) {
    s.on_tokens(raw, {1, 1, last_finishes && i == tokens - 1, i == 0});
    if (i % 2 == 1) s.seal(raw);  // tokens 0+1 coalesced into one chunk, then 2 on its own
  }
  s.seal(raw);
  return raw;
}

TEST(ServerStream, SeparateUsageChunkDecodedByTheClientDecoder) {
  StreamState s(setup(Api::completions, true, false));
  const Parsed p = parse_response(run(s, 3));
  EXPECT_NE(p.head.find("Transfer-Encoding: chunked"), std::string::npos);
  EXPECT_NE(p.head.find("text/event-stream"), std::string::npos);
  EXPECT_TRUE(p.complete);
  ASSERT_EQ(p.events.size(), 5u);  // 3 tokens, usage, [DONE]
  StreamDecoder dec(Api::completions);
  ChunkInfo info;
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(dec.decode_chunk(p.events[i], info));
    EXPECT_EQ(info.kind, ChunkInfo::Kind::token);
    EXPECT_EQ(info.finished, i == 2);
    EXPECT_FALSE(info.has_usage);
  }
  ASSERT_TRUE(dec.decode_chunk(p.events[3], info));
  EXPECT_EQ(info.kind, ChunkInfo::Kind::usage_only);
  EXPECT_EQ(info.prompt_tokens, 10);
  EXPECT_EQ(info.completion_tokens, 3);
  ASSERT_TRUE(dec.decode_chunk(p.events[4], info));
  EXPECT_EQ(info.kind, ChunkInfo::Kind::done);
  EXPECT_TRUE(s.done());
}

TEST(ServerStream, UsageInLastChunkForChat) {
  StreamState s(setup(Api::chat, false, true));
  const Parsed p = parse_response(run(s, 3));
  ASSERT_EQ(p.events.size(), 4u);  // no separate usage chunk
  StreamDecoder dec(Api::chat);
  ChunkInfo info;
  ASSERT_TRUE(dec.decode_chunk(p.events[2], info));
  EXPECT_EQ(info.kind, ChunkInfo::Kind::token);
  EXPECT_TRUE(info.has_usage);
  EXPECT_EQ(info.completion_tokens, 3);
  EXPECT_EQ(nlohmann::json::parse(p.events[2])["choices"][0]["finish_reason"], "length");
}

TEST(ServerStream, NoUsageWhenNotAsked) {
  StreamState s(setup(Api::completions, false, false));
  const Parsed p = parse_response(run(s, 3));
  ASSERT_EQ(p.events.size(), 4u);
  for (const auto& e : p.events) EXPECT_EQ(e.find("usage"), std::string::npos);
}

TEST(ServerStream, EarlyEosFinishesWithStop) {
  StreamState s(setup(Api::completions, false, false));
  const Parsed p = parse_response(run(s, 2));  // max_tokens 3, finished after 2
  EXPECT_EQ(nlohmann::json::parse(p.events[1])["choices"][0]["finish_reason"], "stop");
}

TEST(ServerStream, DropFaultCutsTheStreamAfterTheGivenTokens) {
  StreamState s(setup(Api::completions, true, false, {FaultKind::drop, 2}));
  std::string raw;
  s.begin(raw, true);
  s.on_tokens(raw, {1, 1, false, true});
  EXPECT_FALSE(s.drop_now());
  s.on_tokens(raw, {1, 1, false, false});
  EXPECT_TRUE(s.drop_now());
  s.on_tokens(raw, {1, 1, true, false});  // ignored after the drop
  s.seal(raw);
  const Parsed p = parse_response(raw);
  EXPECT_FALSE(p.complete);
  EXPECT_EQ(p.events.size(), 2u);
}

TEST(ServerStream, MalformedFaultInsertsOneBadEvent) {
  StreamState s(setup(Api::completions, false, false, {FaultKind::malformed, 1}));
  const Parsed p = parse_response(run(s, 3));
  ASSERT_EQ(p.events.size(), 5u);  // token, bad, token, token, [DONE]
  StreamDecoder dec(Api::completions);
  ChunkInfo info;
  EXPECT_TRUE(dec.decode_chunk(p.events[0], info));
  EXPECT_FALSE(dec.decode_chunk(p.events[1], info));
  EXPECT_TRUE(dec.decode_chunk(p.events[2], info));
}

TEST(ServerStream, MultiTokenEventCarriesAllWords) {
  StreamState s(setup(Api::completions, true, false));
  std::string raw;
  s.begin(raw, true);
  s.on_tokens(raw, {1, 3, true, true});
  s.seal(raw);
  const Parsed p = parse_response(raw);
  ASSERT_EQ(p.events.size(), 3u);
  const std::string text = nlohmann::json::parse(p.events[0])["choices"][0]["text"];
  EXPECT_EQ(text, std::string(filler_word(77, 0)) + std::string(filler_word(77, 1)) + std::string(filler_word(77, 2)));
  EXPECT_EQ(nlohmann::json::parse(p.events[1])["usage"]["completion_tokens"], 3);
}

TEST(ServerStream, NonStreamingBody) {
  StreamSetup st = setup(Api::chat, false, false);
  st.stream = false;
  StreamState s(st);
  std::string unused;
  s.on_tokens(unused, {1, 1, false, true});
  s.on_tokens(unused, {1, 1, true, false});
  EXPECT_TRUE(unused.empty());
  std::string raw;
  s.append_full_response(raw, false);
  const auto head_end = raw.find("\r\n\r\n");
  EXPECT_NE(raw.find("Content-Length: " + std::to_string(raw.size() - head_end - 4)), std::string::npos);
  EXPECT_NE(raw.find("Connection: close"), std::string::npos);
  const auto j = nlohmann::json::parse(raw.substr(head_end + 4));
  EXPECT_EQ(j["choices"][0]["message"]["content"],
            std::string(filler_word(77, 0)) + std::string(filler_word(77, 1)));
  EXPECT_EQ(j["usage"]["completion_tokens"], 2);
  EXPECT_EQ(j["choices"][0]["finish_reason"], "stop");
}

// --dialect llama.cpp: the backend's times (TokenEvent at_ns / started_ns), read back by the
// client's decoder as llama.cpp's `timings`. Slot at 1 ms, tokens at 41, 51, 61 ms.
std::string run_timed(StreamState& s) {
  std::string raw;
  s.begin(raw, true);
  for (int i = 0; i < 3; ++i) {
    s.on_tokens(raw, {1, 1, i == 2, i == 0, (41 + 10 * i) * 1'000'000LL, 1'000'000});
    s.seal(raw);
  }
  return raw;
}

StreamSetup llama_cpp_setup(Api api, bool include_usage) {
  StreamSetup st = setup(api, include_usage, false);
  st.timings = true;
  return st;
}

void expect_timings(const ChunkInfo& info) {
  ASSERT_TRUE(info.has_timings);
  EXPECT_EQ(info.timings.prompt_ms, 40.0);  // slot start to the first token
  EXPECT_EQ(info.timings.predicted_ms, 20.0);
  EXPECT_EQ(info.timings.prompt_n, 10);
  EXPECT_EQ(info.timings.predicted_n, 3);
  EXPECT_EQ(info.timings.cache_n, 0);
}

TEST(ServerStream, LlamaCppTimingsRideOnTheLastChoicesChunkWithoutAUsageChunk) {
  StreamState s(llama_cpp_setup(Api::completions, false));
  const Parsed p = parse_response(run_timed(s));
  ASSERT_EQ(p.events.size(), 4u);  // 3 tokens, [DONE]
  StreamDecoder dec(Api::completions);
  ChunkInfo info;
  for (int i = 0; i < 2; ++i) {
    ASSERT_TRUE(dec.decode_chunk(p.events[i], info));
    EXPECT_FALSE(info.has_timings) << i;
  }
  ASSERT_TRUE(dec.decode_chunk(p.events[2], info));
  EXPECT_TRUE(info.finished);
  expect_timings(info);
  const auto j = nlohmann::json::parse(p.events[2])["timings"];
  EXPECT_EQ(j["prompt_per_token_ms"], 4.0);
  EXPECT_EQ(j["predicted_per_token_ms"], 10.0);  // predicted_ms / (n - 1)
  EXPECT_EQ(j["predicted_per_second"], 150.0);
}

TEST(ServerStream, LlamaCppTimingsRideOnTheUsageChunkForChat) {
  StreamState s(llama_cpp_setup(Api::chat, true));
  const Parsed p = parse_response(run_timed(s));
  ASSERT_EQ(p.events.size(), 5u);  // 3 tokens, usage, [DONE]
  StreamDecoder dec(Api::chat);
  ChunkInfo info;
  ASSERT_TRUE(dec.decode_chunk(p.events[2], info));
  EXPECT_FALSE(info.has_timings);
  ASSERT_TRUE(dec.decode_chunk(p.events[3], info));
  EXPECT_EQ(info.kind, ChunkInfo::Kind::usage_only);
  expect_timings(info);
}

TEST(ServerStream, VllmDialectSendsNoTimings) {
  StreamState s(setup(Api::completions, true, false));
  const Parsed p = parse_response(run_timed(s));
  for (const auto& e : p.events) EXPECT_EQ(e.find("timings"), std::string::npos) << e;
}

TEST(ServerStream, LlamaCppNonStreamingBodyCarriesTimings) {
  StreamSetup st = llama_cpp_setup(Api::completions, false);
  st.stream = false;
  StreamState s(st);
  std::string raw;
  for (int i = 0; i < 3; ++i) s.on_tokens(raw, {1, 1, i == 2, i == 0, (41 + 10 * i) * 1'000'000LL, 1'000'000});
  ASSERT_TRUE(s.done());
  s.append_full_response(raw, true);
  StreamDecoder dec(Api::completions);
  ChunkInfo info;
  ASSERT_TRUE(dec.decode_body(raw.substr(raw.find("\r\n\r\n") + 4), info));
  expect_timings(info);
}

}  // namespace
}  // namespace sb::sim
