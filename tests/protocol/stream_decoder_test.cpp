// StreamDecoder on vLLM-shaped chunks (completions and chat), usage in both positions, errors and
// malformed JSON; plus the fixtures pushed through SseParser -> StreamDecoder as the runner does.
#include "protocol/stream_decoder.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "protocol/sse_parser.hpp"

namespace sb {
namespace {

using Kind = ChunkInfo::Kind;

TEST(StreamDecoder, CompletionsTokenChunk) {
  StreamDecoder d(Api::completions);
  ChunkInfo c;
  ASSERT_TRUE(d.decode_chunk(
      R"({"id":"x","choices":[{"index":0,"text":" Paris","logprobs":null,"finish_reason":null}],"usage":null})", c));
  EXPECT_EQ(c.kind, Kind::token);
  EXPECT_EQ(c.text, " Paris");
  EXPECT_FALSE(c.finished);
  EXPECT_FALSE(c.has_usage);
}

TEST(StreamDecoder, EscapesAreDecoded) {
  StreamDecoder d(Api::completions);
  ChunkInfo c;
  ASSERT_TRUE(d.decode_chunk(R"({"choices":[{"text":"a\"b\n\u4f60"}]})", c));
  EXPECT_EQ(c.text, "a\"b\n\xe4\xbd\xa0");
}

TEST(StreamDecoder, UsageInsideLastChoicesChunk) {
  StreamDecoder d(Api::completions);
  ChunkInfo c;
  ASSERT_TRUE(d.decode_chunk(
      R"({"choices":[{"text":"!","finish_reason":"length"}],"usage":{"prompt_tokens":5,"completion_tokens":9,"total_tokens":14}})", c));
  EXPECT_EQ(c.kind, Kind::token);
  EXPECT_TRUE(c.finished);
  EXPECT_TRUE(c.has_usage);
  EXPECT_EQ(c.prompt_tokens, 5);
  EXPECT_EQ(c.completion_tokens, 9);
}

TEST(StreamDecoder, UsageInItsOwnChunkWithEmptyChoices) {
  StreamDecoder d(Api::chat);
  ChunkInfo c;
  ASSERT_TRUE(d.decode_chunk(R"({"choices":[],"usage":{"prompt_tokens":12,"completion_tokens":4}})", c));
  EXPECT_EQ(c.kind, Kind::usage_only);
  EXPECT_EQ(c.prompt_tokens, 12);
  EXPECT_EQ(c.completion_tokens, 4);
}

TEST(StreamDecoder, ChatRoleOnlyAndNullContentChunksAreTokenEvents) {
  StreamDecoder d(Api::chat);
  ChunkInfo c;
  ASSERT_TRUE(d.decode_chunk(R"({"choices":[{"index":0,"delta":{"role":"assistant"},"finish_reason":null}]})", c));
  EXPECT_EQ(c.kind, Kind::token);  // vLLM counts any non-empty choices (spec 3.3)
  EXPECT_EQ(c.text, "");
  ASSERT_TRUE(d.decode_chunk(R"({"choices":[{"delta":{"content":null,"reasoning_content":"r"},"finish_reason":"stop"}]})", c));
  EXPECT_EQ(c.kind, Kind::token);
  EXPECT_EQ(c.text, "");
  EXPECT_TRUE(c.finished);
  ASSERT_TRUE(d.decode_chunk(R"({"choices":[{"delta":{"content":"Hi"}}]})", c));
  EXPECT_EQ(c.text, "Hi");
}

TEST(StreamDecoder, DoneWithSurroundingWhitespace) {
  StreamDecoder d(Api::chat);
  ChunkInfo c;
  ASSERT_TRUE(d.decode_chunk(" [DONE]\r\n", c));
  EXPECT_EQ(c.kind, Kind::done);
}

TEST(StreamDecoder, ErrorObjects) {
  StreamDecoder d(Api::completions);
  ChunkInfo c;
  ASSERT_TRUE(d.decode_chunk(R"({"error":{"message":"overloaded","type":"server_error","code":503}})", c));
  EXPECT_EQ(c.kind, Kind::error);
  EXPECT_EQ(c.error_message, "overloaded");
  ASSERT_TRUE(d.decode_chunk(R"({"object":"error","message":"max_tokens too large","type":"BadRequestError","code":400})", c));
  EXPECT_EQ(c.kind, Kind::error);
  EXPECT_EQ(c.error_message, "max_tokens too large");
  ASSERT_TRUE(d.decode_chunk(R"({"error":"plain"})", c));
  EXPECT_EQ(c.kind, Kind::error);
  EXPECT_EQ(c.error_message, "plain");
}

// Keys are read in place unless they hold a backslash (stream_decoder.cpp, read_key): an escaped key
// still names its field, a key with a bad escape or a quote in it is still refused or kept apart.
TEST(StreamDecoder, EscapedKeysAreDecodedAndBadEscapesRefused) {
  StreamDecoder d(Api::completions);
  ChunkInfo c;
  ASSERT_TRUE(d.decode_chunk(R"({"ch\u006fices":[{"t\u0065xt":"x","finish_reason":"stop"}]})", c));
  EXPECT_EQ(c.kind, Kind::token);
  EXPECT_EQ(c.text, "x");
  EXPECT_TRUE(c.finished);
  ASSERT_TRUE(d.decode_chunk(R"({"choices":[{"te\"xt":"x","text":"y"}]})", c));
  EXPECT_EQ(c.text, "y");  // te"xt is another key
  ASSERT_TRUE(d.decode_chunk(R"({"choices":[{"text\\":"x"}]})", c));
  EXPECT_EQ(c.text, "");  // text\ is another key too
  EXPECT_FALSE(d.decode_chunk(R"({"choices":[{"te\qxt":"x"}]})", c));
  EXPECT_FALSE(d.decode_chunk(R"({"id\x":1,"choices":[{"text":"x"}]})", c));
}

TEST(StreamDecoder, MalformedJsonIsRejected) {
  StreamDecoder d(Api::completions);
  ChunkInfo c;
  EXPECT_FALSE(d.decode_chunk(R"({"choices":[{"text":"a"})", c));
  EXPECT_FALSE(d.decode_chunk(R"({"choices":[{"text":"a"}]} trailing)", c));
  EXPECT_FALSE(d.decode_chunk(R"({"choices":[{"text":1}]})", c));
  EXPECT_FALSE(d.decode_chunk("not json", c));
  EXPECT_FALSE(d.decode_chunk("[1,2]", c));  // (an empty payload is no error: EmptyOrBlankDataCarriesNothing)
  // The decoder stays usable after an error.
  ASSERT_TRUE(d.decode_chunk(R"({"choices":[{"text":"ok"}]})", c));
  EXPECT_EQ(c.text, "ok");
}

TEST(StreamDecoder, OtherObjectsAreNeitherTokensNorUsage) {
  StreamDecoder d(Api::completions);
  ChunkInfo c;
  ASSERT_TRUE(d.decode_chunk(R"({"id":"x","choices":[],"usage":null})", c));
  EXPECT_EQ(c.kind, Kind::other);
}

TEST(StreamDecoder, NonStreamingBodies) {
  StreamDecoder chat(Api::chat);
  ChunkInfo c;
  ASSERT_TRUE(chat.decode_body(
      R"({"id":"c","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"Hello there"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}})", c));
  EXPECT_EQ(c.kind, Kind::token);
  EXPECT_EQ(c.text, "Hello there");
  EXPECT_EQ(c.completion_tokens, 2);
  StreamDecoder cmpl(Api::completions);
  ASSERT_TRUE(cmpl.decode_body(
      "{\"choices\":[{\"text\":\"abc\",\"finish_reason\":\"length\"}],\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":3}}\n", c));
  EXPECT_EQ(c.text, "abc");
  EXPECT_EQ(c.prompt_tokens, 1);
  EXPECT_FALSE(cmpl.decode_body("{\"choices\":", c));
}

// Harmless quirks of real servers must decode; what JSON forbids must not.
TEST(StreamDecoder, NullErrorFieldInANormalChunkIsNoError) {
  StreamDecoder d(Api::completions);
  ChunkInfo c;
  ASSERT_TRUE(d.decode_chunk(R"({"choices":[{"text":"x","finish_reason":null}],"error":null})", c));
  EXPECT_EQ(c.kind, Kind::token);
  EXPECT_EQ(c.text, "x");
  ASSERT_TRUE(d.decode_chunk(R"({"error":null,"usage":{"prompt_tokens":3,"completion_tokens":4}})", c));
  EXPECT_EQ(c.kind, Kind::usage_only);
}

TEST(StreamDecoder, UsageCountsWrittenAsWholeFloatsOrNull) {
  StreamDecoder d(Api::completions);
  ChunkInfo c;
  ASSERT_TRUE(d.decode_chunk(R"({"choices":[],"usage":{"prompt_tokens":7.0,"completion_tokens":12.0}})", c));
  EXPECT_EQ(c.prompt_tokens, 7);
  EXPECT_EQ(c.completion_tokens, 12);
  ASSERT_TRUE(d.decode_chunk(R"({"choices":[],"usage":{"prompt_tokens":null,"completion_tokens":5}})", c));
  EXPECT_TRUE(c.has_usage);
  EXPECT_EQ(c.prompt_tokens, -1);  // unknown, not zero
  EXPECT_EQ(c.completion_tokens, 5);
  ASSERT_TRUE(d.decode_chunk(R"({"choices":[],"usage":{"prompt_tokens":2147483647,"completion_tokens":0}})", c));
  EXPECT_EQ(c.prompt_tokens, 2147483647);
}

TEST(StreamDecoder, UsageCountsThatAreNoCountsAreMalformedNotTruncated) {
  StreamDecoder d(Api::completions);
  ChunkInfo c;
  EXPECT_FALSE(d.decode_chunk(R"({"usage":{"prompt_tokens":1,"completion_tokens":2147483648}})", c));
  EXPECT_FALSE(d.decode_chunk(R"({"usage":{"prompt_tokens":1,"completion_tokens":4294967303}})", c));
  EXPECT_FALSE(d.decode_chunk(R"({"usage":{"prompt_tokens":1,"completion_tokens":7.5}})", c));
  EXPECT_FALSE(d.decode_chunk(R"({"usage":{"prompt_tokens":1,"completion_tokens":3.4e30}})", c));
  EXPECT_FALSE(d.decode_chunk(R"({"usage":{"prompt_tokens":-1,"completion_tokens":3}})", c));
  EXPECT_FALSE(d.decode_chunk(R"({"usage":{"prompt_tokens":"7","completion_tokens":3}})", c));
}

TEST(StreamDecoder, EmptyOrBlankDataCarriesNothing) {
  StreamDecoder d(Api::chat);
  ChunkInfo c;
  c.kind = Kind::token;
  ASSERT_TRUE(d.decode_chunk("", c));
  EXPECT_EQ(c.kind, Kind::other);
  EXPECT_FALSE(c.has_usage);
  ASSERT_TRUE(d.decode_chunk(" \r\n", c));
  EXPECT_EQ(c.kind, Kind::other);
  EXPECT_FALSE(d.decode_body("", c));  // a non-streaming answer with no body is not an answer
}

TEST(StreamDecoder, TextAfterTheObjectIsMalformed) {
  StreamDecoder d(Api::completions);
  ChunkInfo c;
  EXPECT_FALSE(d.decode_chunk(R"({"choices":[{"text":"a"}]}{"choices":[{"text":"b"}]})", c));
  EXPECT_FALSE(d.decode_chunk(R"({"choices":[{"text":"a"}]} x)", c));
  EXPECT_FALSE(d.decode_chunk(R"({"choices":[{"text":"a"}]}})", c));
  EXPECT_TRUE(d.decode_chunk(R"({"choices":[{"text":"a"}]}  )", c));  // trailing blanks are fine
}

TEST(StreamDecoder, ControlBytesInSkippedValuesAreMalformed) {
  StreamDecoder d(Api::completions);
  ChunkInfo c;
  std::string nul = R"({"id":"ab","choices":[{"text":"x"}]})";
  nul[8] = '\0';  // inside "ab", a field the decoder skips
  EXPECT_FALSE(d.decode_chunk(nul, c));
  std::string bell = R"({"model":"m\u0007","choices":[{"text":"x"}]})";
  EXPECT_TRUE(d.decode_chunk(bell, c));  // escaped: valid JSON
  bell = std::string("{\"model\":\"m\x07\",\"choices\":[{\"text\":\"x\"}]}");
  EXPECT_FALSE(d.decode_chunk(bell, c));
  EXPECT_TRUE(d.decode_chunk("{\"choices\":\n[{\"text\":\"x\"}]}", c));  // whitespace between tokens
}

TEST(StreamDecoder, AControlByteIsFoundAtEveryPosition) {
  StreamDecoder d(Api::completions);
  ChunkInfo c;
  // Long enough for the 32-byte, the 8-byte and the byte-wise parts of the scan.
  const std::string clean =
      R"({"id":"cmpl-0123456789abcdef0123456789abcdef","model":"some/model-name-8b","choices":[{"text":"x"}]})";
  ASSERT_TRUE(d.decode_chunk(clean, c));
  const std::size_t first = clean.find("0123"), last = clean.find("8b") + 1;
  for (std::size_t i = first; i <= last; ++i) {
    std::string bad = clean;
    bad[i] = '\x01';
    EXPECT_FALSE(d.decode_chunk(bad, c)) << "control byte at " << i;
  }
}

std::string read_stream_fixture(const std::string& name) {
  std::ifstream in(std::string(SB_SOURCE_DIR) + "/tests/protocol/data/" + name, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// What the runner does per response: parse events, decode each, count tokens and collect text.
struct StreamTally {
  int token_events = 0, done = 0, usage_chunks = 0, completion_tokens = -1, prompt_tokens = -1;
  std::string text;
};

StreamTally tally(const std::string& sse, Api api) {
  SseParser p;
  StreamDecoder d(api);
  StreamTally t;
  auto on_event = [&](const SseParser::Event& e) {
    ChunkInfo c;
    ASSERT_TRUE(d.decode_chunk(e.data, c)) << e.data;
    if (c.kind == Kind::token) {
      ++t.token_events;
      t.text.append(c.text);
    }
    if (c.kind == Kind::done) ++t.done;
    if (c.kind == Kind::usage_only) ++t.usage_chunks;
    if (c.has_usage) {
      t.completion_tokens = c.completion_tokens;
      t.prompt_tokens = c.prompt_tokens;
    }
  };
  p.feed(sse, on_event);
  p.finish(on_event);
  return t;
}

TEST(StreamDecoder, CompletionsFixtureEndToEnd) {
  StreamTally t = tally(read_stream_fixture("vllm_completions.sse"), Api::completions);
  EXPECT_EQ(t.token_events, 3);
  EXPECT_EQ(t.text, " Paris is the \"capital\"\n");
  EXPECT_EQ(t.usage_chunks, 1);
  EXPECT_EQ(t.completion_tokens, 3);
  EXPECT_EQ(t.prompt_tokens, 7);
  EXPECT_EQ(t.done, 1);
}

TEST(StreamDecoder, ChatFixtureEndToEnd) {
  StreamTally t = tally(read_stream_fixture("vllm_chat.sse"), Api::chat);
  EXPECT_EQ(t.token_events, 4);  // role chunk + 2 content chunks + null-content finish chunk
  EXPECT_EQ(t.text, "Bonjour \xe4\xbd\xa0\xe5\xa5\xbd");
  EXPECT_EQ(t.completion_tokens, 4);
  EXPECT_EQ(t.done, 1);
}

TEST(StreamDecoder, GatewayFixtureMultiLineDataDecodes) {
  StreamTally t = tally(read_stream_fixture("gateway_mixed.sse"), Api::completions);
  EXPECT_EQ(t.token_events, 2);
  EXPECT_EQ(t.text, "ab");
  EXPECT_EQ(t.completion_tokens, 2);
  EXPECT_EQ(t.usage_chunks, 0);  // usage rode along with the second choices chunk
}

// llama-server's last completions chunk: empty text, finish_reason, usage and `timings` together
// (shape of tools/server/server.cpp; values ours).
constexpr const char* kLlamaCppLastChunk =
    R"({"choices":[{"text":"","index":0,"logprobs":null,"finish_reason":"length"}],"created":1764470000,)"
    R"("model":"qwen2.5-0.5b","system_fingerprint":"b6300-2d3a5b6","object":"text_completion","id":"chatcmpl-Xy",)"
    R"("usage":{"completion_tokens":16,"prompt_tokens":9,"total_tokens":25},)"
    R"("timings":{"cache_n":3,"prompt_n":6,"prompt_ms":41.232,"prompt_per_token_ms":6.872,)"
    R"("prompt_per_second":145.5180442374854,"predicted_n":16,"predicted_ms":388.421,)"
    R"("predicted_per_token_ms":25.894733333333335,"predicted_per_second":41.19241236184449}})";

TEST(StreamDecoder, LlamaCppLastChunkCarriesItsTimings) {
  StreamDecoder d(Api::completions);
  ChunkInfo c;
  ASSERT_TRUE(d.decode_chunk(kLlamaCppLastChunk, c));
  EXPECT_EQ(c.kind, Kind::token);
  EXPECT_TRUE(c.finished);
  EXPECT_EQ(c.completion_tokens, 16);
  ASSERT_TRUE(c.has_timings);
  EXPECT_EQ(c.timings.prompt_ms, 41.232);
  EXPECT_EQ(c.timings.predicted_ms, 388.421);
  EXPECT_EQ(c.timings.cache_n, 3);
  EXPECT_EQ(c.timings.prompt_n, 6);
  EXPECT_EQ(c.timings.predicted_n, 16);
}

TEST(StreamDecoder, LlamaCppChatUsageChunkCarriesItsTimings) {
  StreamDecoder d(Api::chat);
  ChunkInfo c;
  ASSERT_TRUE(d.decode_chunk(
      R"({"choices":[],"created":1764470001,"id":"chatcmpl-Q","model":"m","object":"chat.completion.chunk",)"
      R"("usage":{"completion_tokens":4,"prompt_tokens":70,"total_tokens":74},)"
      R"("timings":{"cache_n":64,"prompt_n":6,"prompt_ms":5.5,"predicted_n":4,"predicted_ms":30.25}})",
      c));
  EXPECT_EQ(c.kind, Kind::usage_only);
  ASSERT_TRUE(c.has_timings);
  EXPECT_EQ(c.timings.cache_n, 64);
  EXPECT_EQ(c.timings.prompt_ms, 5.5);
  EXPECT_EQ(c.timings.predicted_ms, 30.25);
}

TEST(StreamDecoder, TokenChunkHasNoServerTimings) {
  StreamDecoder d(Api::completions);
  ChunkInfo c;
  ASSERT_TRUE(d.decode_chunk(kLlamaCppLastChunk, c));
  ASSERT_TRUE(d.decode_chunk(R"({"choices":[{"index":0,"text":" a","finish_reason":null}]})", c));
  EXPECT_FALSE(c.has_timings);  // nothing left over from the chunk before
  EXPECT_EQ(c.timings.prompt_ms, -1);
  EXPECT_EQ(c.cached_tokens, -1);
}

TEST(StreamDecoder, VllmCachedTokensComeFromPromptTokensDetails) {
  StreamDecoder d(Api::completions);
  ChunkInfo c;
  ASSERT_TRUE(d.decode_chunk(
      R"({"choices":[],"usage":{"prompt_tokens":1024,"total_tokens":1040,"completion_tokens":16,)"
      R"("prompt_tokens_details":{"cached_tokens":768}}})",
      c));
  EXPECT_EQ(c.prompt_tokens, 1024);
  EXPECT_EQ(c.cached_tokens, 768);
  EXPECT_FALSE(c.has_timings);
  // vLLM without --enable-prompt-tokens-details sends null: not reported, not 0.
  ASSERT_TRUE(d.decode_chunk(R"({"choices":[],"usage":{"prompt_tokens":8,"prompt_tokens_details":null}})", c));
  EXPECT_EQ(c.cached_tokens, -1);
  EXPECT_FALSE(d.decode_chunk(R"({"choices":[],"usage":{"prompt_tokens_details":{"cached_tokens":"7"}}})", c));
}

TEST(StreamDecoder, OddTimingValuesAreUnknownAndTheChunkStillCounts) {
  StreamDecoder d(Api::completions);
  ChunkInfo c;
  ASSERT_TRUE(d.decode_chunk(
      R"({"choices":[{"text":"x","finish_reason":"stop"}],"timings":{"prompt_ms":null,"cache_n":"3",)"
      R"("prompt_n":-2,"predicted_ms":-1.5,"predicted_n":2.0,"extra":{"a":[1]}}})",
      c));
  EXPECT_EQ(c.kind, Kind::token);
  ASSERT_TRUE(c.has_timings);
  EXPECT_EQ(c.timings.prompt_ms, -1);
  EXPECT_EQ(c.timings.cache_n, -1);
  EXPECT_EQ(c.timings.prompt_n, -1);
  EXPECT_EQ(c.timings.predicted_ms, -1);
  EXPECT_EQ(c.timings.predicted_n, 2);
  ASSERT_TRUE(d.decode_chunk(R"({"choices":[{"text":"x"}],"timings":null})", c));
  EXPECT_FALSE(c.has_timings);
  // Timings never excuse broken JSON.
  EXPECT_FALSE(d.decode_chunk(R"({"choices":[{"text":"x"}],"timings":{"prompt_ms":1.5,}})", c));
}

TEST(StreamDecoder, LlamaCppNonStreamingBodyCarriesItsTimings) {
  StreamDecoder d(Api::completions);
  ChunkInfo c;
  ASSERT_TRUE(d.decode_body(
      R"({"choices":[{"text":" Paris.","index":0,"finish_reason":"stop"}],"usage":{"completion_tokens":2,)"
      R"("prompt_tokens":5},"timings":{"cache_n":0,"prompt_n":5,"prompt_ms":12.0,"predicted_n":2,"predicted_ms":9.5}})",
      c));
  EXPECT_EQ(c.kind, Kind::token);
  ASSERT_TRUE(c.has_timings);
  EXPECT_EQ(c.timings.prompt_ms, 12.0);
  EXPECT_EQ(c.timings.cache_n, 0);
}

}  // namespace
}  // namespace sb
