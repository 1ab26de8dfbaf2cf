// ChunkShape through StreamDecoder::decode_chunk: a decoder with a learnt shape answers exactly as
// one without (accepts and refuses the same payloads, reads the same fields), and skips the parse
// only for plain token chunks of the learnt shape.
#include "protocol/chunk_shape.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "protocol/sse_parser.hpp"
#include "protocol/stream_decoder.hpp"

namespace sb {
namespace {

using Kind = ChunkInfo::Kind;

const std::string kHead = R"({"id":"cmpl-1","object":"text_completion","created":1,"model":"m","choices":[{"index":0,"text":")";
const std::string kTail = R"(","logprobs":null,"finish_reason":null,"stop_reason":null}],"usage":null})";

// A matched chunk's text views the payload (as the SSE parser's buffer is for the client), so
// the payload must outlive the ChunkInfo: these tests keep the last one here. ASan's pass caught
// the first version of them reading a destroyed temporary.
struct ShapedDecoder {
  explicit ShapedDecoder(Api api) : d(api) {}
  bool decode(std::string p) {
    payload = std::move(p);
    return d.decode_chunk(payload, c, shape);
  }
  StreamDecoder d;
  ChunkShape shape;
  ChunkInfo c;
  std::string payload;
};

void expect_same(StreamDecoder& full, StreamDecoder& shaped, ChunkShape& shape, const std::string& payload) {
  ChunkInfo a, b;
  const bool ok_a = full.decode_chunk(payload, a);
  const bool ok_b = shaped.decode_chunk(payload, b, shape);
  ASSERT_EQ(ok_a, ok_b) << payload;
  if (!ok_a) return;
  EXPECT_EQ(a.kind, b.kind) << payload;
  EXPECT_EQ(a.text, b.text) << payload;
  EXPECT_EQ(a.finished, b.finished) << payload;
  EXPECT_EQ(a.finish_reason, b.finish_reason) << payload;
  EXPECT_EQ(a.has_usage, b.has_usage) << payload;
  EXPECT_EQ(a.completion_tokens, b.completion_tokens) << payload;
}

TEST(ChunkShape, ShapedDecodingAnswersAsFullDecodingAndSkipsOnlyPlainTexts) {
  StreamDecoder full(Api::completions), shaped(Api::completions);
  ChunkShape shape;
  expect_same(full, shaped, shape, kHead + " first" + kTail);  // learns the shape
  EXPECT_EQ(shape.matched(), 0u);
  // Texts that unescape to themselves: matched in place.
  const std::vector<std::string> matched = {" Paris", "", "\xe4\xbd\xa0", "a\x7f" "b"};
  for (const std::string& text : matched) expect_same(full, shaped, shape, kHead + text + kTail);
  EXPECT_EQ(shape.matched(), matched.size());
  // Same shape, texts that are not plain: a quote, escapes, control bytes, bad UTF-8. Decoded in
  // full, so they are refused or read exactly as before.
  const std::vector<std::string> other = {"a\"b",      "a\\\"b",    "a\\nb", "a\\u4f60", "a\\",     "a\\q",
                                          "tab\there", "nul\x01",   "\xff",  "\xe4\xbd", "a\nb",    "\"}]} {\"x\":\""};
  for (const std::string& text : other) expect_same(full, shaped, shape, kHead + text + kTail);
  // Another tail: the last chunk (finish_reason), usage with the text, text after the object.
  expect_same(full, shaped, shape, kHead + "x" + R"(","logprobs":null,"finish_reason":"length","stop_reason":null}],"usage":null})");
  expect_same(full, shaped, shape, kHead + "x" + R"(","logprobs":null,"finish_reason":null,"stop_reason":null}],"usage":{"prompt_tokens":3,"completion_tokens":9}})");
  expect_same(full, shaped, shape, kHead + "x" + kTail + "x");
  expect_same(full, shaped, shape, kHead + "x" + kTail.substr(0, kTail.size() - 1));
  // Plain again: the shape still (or again) stands in.
  const std::uint64_t before = shape.matched();
  expect_same(full, shaped, shape, kHead + " again" + kTail);
  EXPECT_EQ(shape.matched(), before + 1);
}

TEST(ChunkShape, OnlyAPlainTokenChunkIsLearnt) {
  ShapedDecoder s(Api::completions);
  const ChunkInfo& c = s.c;
  // Text that needed unescaping, a finished chunk, a usage chunk: none becomes the shape.
  ASSERT_TRUE(s.decode(kHead + "a\\\"b" + kTail));
  EXPECT_EQ(c.text, "a\"b");
  ASSERT_TRUE(s.decode(kHead + "a" + kTail));  // the first plain one: learnt
  EXPECT_EQ(s.shape.matched(), 0u);
  ASSERT_TRUE(s.decode(kHead + "b" + R"(","logprobs":null,"finish_reason":"stop","stop_reason":null}],"usage":null})"));
  EXPECT_TRUE(c.finished);
  EXPECT_EQ(c.finish_reason, "stop");
  ASSERT_TRUE(s.decode(R"({"choices":[],"usage":{"prompt_tokens":1,"completion_tokens":2}})"));
  EXPECT_EQ(c.kind, Kind::usage_only);
  ASSERT_TRUE(s.decode(" [DONE]"));
  EXPECT_EQ(c.kind, Kind::done);
  // The plain shape learnt above still matches.
  ASSERT_TRUE(s.decode(kHead + "c" + kTail));
  EXPECT_EQ(c.kind, Kind::token);
  EXPECT_EQ(c.text, "c");
  EXPECT_FALSE(c.finished);
  EXPECT_EQ(s.shape.matched(), 1u);
}

TEST(ChunkShape, ALargeChunkIsNotLearnt) {
  ShapedDecoder s(Api::completions);
  const ChunkInfo& c = s.c;
  const std::string long_text(ChunkShape::kMaxBytes, 'x');
  ASSERT_TRUE(s.decode(kHead + long_text + kTail));
  ASSERT_TRUE(s.decode(kHead + long_text + "y" + kTail));
  EXPECT_EQ(c.text.size(), long_text.size() + 1);
  EXPECT_EQ(s.shape.matched(), 0u);
  ASSERT_TRUE(s.decode(kHead + "a" + kTail));  // a small one is
  ASSERT_TRUE(s.decode(kHead + long_text + kTail));
  EXPECT_EQ(c.text, long_text);
  EXPECT_EQ(s.shape.matched(), 1u);
}

TEST(ChunkShape, ChatDeltasMatchTheirShape) {
  ShapedDecoder s(Api::chat);
  const ChunkInfo& c = s.c;
  const std::string head = R"({"id":"chatcmpl-1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":")";
  const std::string tail = R"("},"logprobs":null,"finish_reason":null}]})";
  ASSERT_TRUE(s.decode(head + "Hi" + tail));
  ASSERT_TRUE(s.decode("  " + head + " there" + tail + "\r\n"));  // spaces around the payload
  EXPECT_EQ(c.kind, Kind::token);
  EXPECT_EQ(c.text, " there");
  EXPECT_EQ(s.shape.matched(), 1u);
  EXPECT_FALSE(s.decode(head + "\x01" + tail));
}

// What match_event takes, checked against the SSE parser and match(): the event ends exactly
// where it says (the parser finds one whole event in those bytes and none in fewer but for a
// final LF that a CR before it has ended the line for), and its
// payload decodes in full to a plain token chunk with the same text.
void expect_taken(ChunkShape& shape, const std::string& event, const std::string& after, const std::string& text) {
  const std::string bytes = event + after;
  std::string_view got;
  ASSERT_EQ(shape.match_event(bytes, got), event.size()) << bytes;
  EXPECT_EQ(got, text);
  EXPECT_EQ(got.data(), bytes.data() + event.rfind(kTail) - text.size());  // a view where it lies
  std::vector<std::string> payloads;
  SseParser whole, unfinished;
  whole.feed(event, [&](const SseParser::Event& e) { payloads.emplace_back(e.data); });
  ASSERT_EQ(payloads.size(), 1u) << event;
  // A blank line's bare CR already ends it for the parser (its LF may come in the next read).
  const std::size_t short_by = event.ends_with("\r\n\r\n") ? 2 : 1;
  unfinished.feed(std::string_view(event).substr(0, event.size() - short_by),
                    [&](const SseParser::Event&) { FAIL() << event; });
  StreamDecoder full(Api::completions);
  ChunkInfo c;
  ASSERT_TRUE(full.decode_chunk(payloads[0], c)) << event;
  EXPECT_EQ(c.kind, Kind::token);
  EXPECT_EQ(c.text, text);
  EXPECT_FALSE(c.finished);
  EXPECT_FALSE(c.has_usage);
}

TEST(ChunkShape, MatchEventTakesOneWholeEventOfTheLearntShape) {
  ShapedDecoder s(Api::completions);
  ASSERT_TRUE(s.decode(kHead + " first" + kTail));
  const std::string next = "data: " + kHead + "next" + kTail + "\n\n";
  for (const std::string& text : {std::string(" Paris"), std::string(), std::string("\xe4\xbd\xa0"), std::string("a\x7f" "b")}) {
    expect_taken(s.shape, "data: " + kHead + text + kTail + "\n\n", next, text);
    expect_taken(s.shape, "data:" + kHead + text + kTail + "\n\n", "", text);
    expect_taken(s.shape, "data: " + kHead + text + kTail + "\r\n\r\n", ": note\n", text);
  }
  EXPECT_EQ(s.shape.matched(), 12u);
}

// match_events: the events match_event takes one after another, up to the first it leaves.
TEST(ChunkShape, MatchEventsTakesARunOfWholeEvents) {
  ShapedDecoder s(Api::completions);
  ASSERT_TRUE(s.decode(kHead + " first" + kTail));
  const auto event = [](const std::string& text, const char* end = "\n\n") { return "data: " + kHead + text + kTail + end; };
  const std::string run = event(" a") + event("") + event(" c", "\r\n\r\n") + event("\xc3\xa9");
  const std::string rest = event("\"q\"") + event(" after");
  std::vector<std::string> texts;
  const std::string bytes = run + rest;
  EXPECT_EQ(s.shape.match_events(bytes, [&](std::string_view t) { texts.emplace_back(t); }), run.size());
  EXPECT_EQ(texts, (std::vector<std::string>{" a", "", " c", "\xc3\xa9"}));
  EXPECT_EQ(s.shape.match_events(rest, [&](std::string_view) { FAIL(); }), 0u);
  // An unfinished last event is left whole.
  texts.clear();
  EXPECT_EQ(s.shape.match_events(std::string_view(run).substr(0, run.size() - 1), [&](std::string_view t) { texts.emplace_back(t); }),
            run.size() - event("\xc3\xa9").size());
  EXPECT_EQ(texts.size(), 3u);
}

// Whatever match_event leaves (returns 0 for) goes to the SSE parser and the decoder as before:
// an unfinished event, another line end, another field first, a text that is not plain, another
// tail. It never takes one of these.
TEST(ChunkShape, MatchEventLeavesEverythingElse) {
  ShapedDecoder s(Api::completions);
  ASSERT_TRUE(s.decode(kHead + " first" + kTail));
  const std::string event = "data: " + kHead + "x" + kTail + "\n\n";
  std::string_view text;
  for (std::size_t n = 0; n < event.size(); ++n)
    ASSERT_EQ(s.shape.match_event(std::string_view(event).substr(0, n), text), 0u) << "first " << n << " bytes";
  const std::vector<std::string> left = {
      "data:  " + kHead + "x" + kTail + "\n\n",        // two spaces: the payload starts with one
      "data: " + kHead + "x" + kTail + "\n\r\n",      // a blank line ended otherwise
      "data: " + kHead + "x" + kTail + "\r\n\n",
      "data: " + kHead + "x" + kTail + "\r\r",
      "data: " + kHead + "x" + kTail + "\nx\n\n",     // another line before the blank one
      "data: " + kHead + "x" + kTail + " \n\n",        // a space after the payload
      "data: " + kHead + "x" + kTail + "x\n\n",
      "event: e\n" + event,
      ": note\n" + event,
      "data: " + kHead + "a\"b" + kTail + "\n\n",     // a quote, escapes, control bytes, line ends
      "data: " + kHead + "a\\\"b" + kTail + "\n\n",
      "data: " + kHead + "a\\nb" + kTail + "\n\n",
      "data: " + kHead + "tab\there" + kTail + "\n\n",
      "data: " + kHead + "a\nb" + kTail + "\n\n",
      "data: " + kHead + "a\n\nb" + kTail + "\n\n",
      "data: " + kHead + "a\rb" + kTail + "\n\n",
      "data: " + kHead + "\xff" + kTail + "\n\n",     // not UTF-8
      "data: " + kHead + "\xe4\xbd" + kTail + "\n\n",
      "data: " + kHead + "x" + R"(","logprobs":null,"finish_reason":"length","stop_reason":null}],"usage":null})" + "\n\n",
      "data: " + kHead.substr(0, kHead.size() - 1) + "x" + kTail + "\n\n",
      "data: " + kHead + "x" + kTail.substr(0, kTail.size() - 1) + "\n\n",
      "Data: " + kHead + "x" + kTail + "\n\n",
  };
  for (const std::string& bytes : left) EXPECT_EQ(s.shape.match_event(bytes, text), 0u) << bytes;
  EXPECT_EQ(s.shape.matched(), 0u);
}

// A shape learnt from a payload with a line break in it (JSON white space between two data
// lines) matches payloads, never raw events: its event's lines end inside the shape.
TEST(ChunkShape, AShapeWithALineBreakMatchesNoEvent) {
  ShapedDecoder s(Api::completions);
  const std::string head = "{\n" + kHead.substr(1);
  ASSERT_TRUE(s.decode(head + "a" + kTail));
  ASSERT_TRUE(s.decode(head + "b" + kTail));
  EXPECT_EQ(s.shape.matched(), 1u);
  std::string_view text;
  EXPECT_EQ(s.shape.match_event("data: " + head + "c" + kTail + "\n\n", text), 0u);
}

}  // namespace
}  // namespace sb
