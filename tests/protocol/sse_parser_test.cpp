// SseParser on captured-style streams, fed whole, split at every byte offset, and byte by byte:
// the events must be identical however the bytes arrive.
#include "protocol/sse_parser.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace sb {
namespace {

using Events = std::vector<std::pair<std::string, std::string>>;  // (event field, data)

std::string read_sse_fixture(const std::string& name) {
  std::ifstream in(std::string(SB_SOURCE_DIR) + "/tests/protocol/data/" + name, std::ios::binary);
  EXPECT_TRUE(in) << name;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Feeds `text` in pieces cut at `cuts` (ascending offsets) and returns every event.
Events parse_pieces(std::string_view text, const std::vector<std::size_t>& cuts) {
  SseParser p;
  Events out;
  auto sink = [&](const SseParser::Event& e) { out.emplace_back(e.event, e.data); };
  std::size_t at = 0;
  for (std::size_t cut : cuts) {
    EXPECT_TRUE(p.feed(text.substr(at, cut - at), sink));
    at = cut;
  }
  EXPECT_TRUE(p.feed(text.substr(at), sink));
  p.finish(sink);
  return out;
}

Events parse_whole(std::string_view text) { return parse_pieces(text, {}); }

// Every two-piece split and the one-byte-at-a-time feed must give `expected`.
void expect_split_invariant(const std::string& text, const Events& expected) {
  for (std::size_t cut = 0; cut <= text.size(); ++cut)
    ASSERT_EQ(parse_pieces(text, {cut}), expected) << "split at byte " << cut;
  std::vector<std::size_t> every;
  for (std::size_t i = 1; i < text.size(); ++i) every.push_back(i);
  ASSERT_EQ(parse_pieces(text, every), expected) << "byte by byte";
}

std::string replace_all(std::string s, std::string_view from, std::string_view to) {
  for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

TEST(SseParser, VllmCompletionsStreamGivesFiveEvents) {
  const std::string text = read_sse_fixture("vllm_completions.sse");
  Events ev = parse_whole(text);
  ASSERT_EQ(ev.size(), 5u);
  EXPECT_EQ(ev[0].first, "");
  EXPECT_EQ(ev[0].second.substr(0, 22), R"({"id":"cmpl-4f1c","obj)");
  EXPECT_NE(ev[2].second.find(R"(" the \"capital\"\n")"), std::string::npos);
  EXPECT_EQ(ev[4].second, "[DONE]");
  expect_split_invariant(text, ev);
}

TEST(SseParser, CrlfAndBareCrSeparatorsGiveTheSameEvents) {
  const std::string lf = read_sse_fixture("vllm_chat.sse");
  const Events expected = parse_whole(lf);
  ASSERT_EQ(expected.size(), 6u);
  const std::string crlf = replace_all(lf, "\n", "\r\n");
  EXPECT_EQ(parse_whole(crlf), expected);
  expect_split_invariant(crlf, expected);
  const std::string cr = replace_all(lf, "\n", "\r");
  EXPECT_EQ(parse_whole(cr), expected);
  expect_split_invariant(cr, expected);
}

TEST(SseParser, CommentsFieldsMultiLineDataAndTailWithoutBlankLine) {
  const std::string text = read_sse_fixture("gateway_mixed.sse");
  const Events expected{
      {"message", R"({"choices":[{"index":0,"text":"a"}]})"},
      {"", "{\"choices\":\n[{\"index\":0,\"text\":\"b\"}],\n\"usage\":{\"prompt_tokens\":2,\"completion_tokens\":2}}"},
      {"", "[DONE]"},  // the file ends after "data: [DONE]\n" with no blank line
  };
  EXPECT_EQ(parse_whole(text), expected);
  expect_split_invariant(text, expected);
}

TEST(SseParser, UnterminatedLastLineIsDispatchedByFinish) {
  const std::string text = "data: {\"a\":1}\n\ndata: [DONE]";
  const Events expected{{"", "{\"a\":1}"}, {"", "[DONE]"}};
  expect_split_invariant(text, expected);
  // Without finish() the tail stays pending.
  SseParser p;
  int n = 0;
  p.feed(text, [&](const SseParser::Event&) { ++n; });
  EXPECT_EQ(n, 1);
}

// Line ends of every kind back to back: a blank line right after "\n", after "\r\n" and after a
// bare "\r" (whose following "\n" belongs to it), however the bytes are split.
TEST(SseParser, BlankLinesAfterEveryKindOfLineEnd) {
  const std::string text = "data: a\n\ndata: b\r\n\ndata: c\r\r\ndata: d\n\r\ndata:e\n\n\n";
  const Events expected{{"", "a"}, {"", "b"}, {"", "c"}, {"", "d"}, {"", "e"}};
  EXPECT_EQ(parse_whole(text), expected);
  expect_split_invariant(text, expected);
}

// Whole one-line events (LF and CRLF, taken in one step) between events that are not: an event
// field, two data lines, a comment, a data line ended by CRLF and its blank line by LF, a bare CR
// inside a line, and an empty data field.
TEST(SseParser, PlainEventsBetweenOtherKindsGiveTheSameEvents) {
  const std::string text =
      "data: a\n\ndata:b\r\n\r\nevent: e\ndata: c\n\ndata: d1\ndata: d2\n\n: note\ndata: f\n\n"
      "data: g\r\n\ndata: h\rdata: i\n\ndata:\n\ndata: j\r\n\r\n";
  const Events expected{{"", "a"}, {"", "b"}, {"e", "c"}, {"", "d1\nd2"}, {"", "f"}, {"", "g"}, {"", "h\ni"},
                        {"", ""},  {"", "j"}};
  EXPECT_EQ(parse_whole(text), expected);
  expect_split_invariant(text, expected);
}

TEST(SseParser, OnlySpaceAfterColonIsStrippedAndEmptyDataIsAnEvent) {
  const Events ev = parse_whole("data:  two spaces\n\ndata\n\ndata:\n\n");
  const Events expected{{"", " two spaces"}, {"", ""}, {"", ""}};
  EXPECT_EQ(ev, expected);
}

TEST(SseParser, BlankLinesAndFieldsWithoutDataDispatchNothing) {
  EXPECT_TRUE(parse_whole("\n\n\r\n: c\n\nevent: x\nid: 7\n\n").empty());
  // The event name of an empty block must not leak into the next event.
  const Events ev = parse_whole("event: x\n\ndata: y\n\n");
  EXPECT_EQ(ev, (Events{{"", "y"}}));
}

TEST(SseParser, OversizedPartialEventIsReported) {
  SseParser p;
  p.max_event_bytes = 16;
  auto ignore = [](const SseParser::Event&) {};
  EXPECT_TRUE(p.feed("data: 0123456789", ignore));
  EXPECT_FALSE(p.feed("abcdefghij", ignore));
  p.reset();
  EXPECT_TRUE(p.feed("data: ok\n\n", ignore));
}

// Lines are read where the input lies when nothing was buffered (sse_parser.hpp, src_): what an
// unfinished event needs must be kept before feed() returns, since the caller reuses its buffer.
TEST(SseParser, AnUnfinishedEventOutlivesTheInputItCameIn) {
  SseParser p;
  Events out;
  auto sink = [&](const SseParser::Event& e) { out.emplace_back(e.event, e.data); };
  std::string read = "data: a\n\ndata: b";  // one event, then half of the next one's data line
  ASSERT_TRUE(p.feed(read, sink));
  read.assign(read.size(), 'X');
  ASSERT_TRUE(p.feed("c\n", sink));  // the line ends: "bc" is the event's data, held in the parser
  read = "\r";
  ASSERT_TRUE(p.feed(read, sink));
  read.assign("XX");
  ASSERT_TRUE(p.feed("\ndata: d\n\n", sink));  // "\r\n" split across reads is one line end
  p.finish(sink);
  const Events expected = {{"", "a"}, {"", "bc"}, {"", "d"}};
  EXPECT_EQ(out, expected);
}

// feed() with a hook that takes whole events: it is offered bytes only where an event may start,
// so what it takes and what the parser dispatches together are the events of the parser alone,
// however the bytes are split. This hook takes each "data: t\n\n" in a row (as the client takes
// its usual chunks); the stream has that line where it is not a whole event of its own: the second
// data line of an event, after an event field, after a comment ended by a CR whose LF comes in
// the next read.
TEST(SseParser, WholeEventsTakenByTheHookGiveTheSameEventsAtEverySplit) {
  const std::string text =
      "data: t\n\ndata: a\ndata: t\n\ndata: t\n\nevent: e\ndata: t\n\n: c\r\ndata: t\n\ndata: t\r\n\r\n"
      ": c\rdata: t\n\ndata:t\n\ndata: t\ndata: t\n\ndata: t\n\ndata: t\n\ndata: t\n\n";
  const Events expected = parse_whole(text);
  ASSERT_EQ(expected.size(), 12u);
  const std::string_view whole = "data: t\n\n";
  std::size_t taken = 0;
  const auto parse_with_hook = [&](const std::vector<std::size_t>& cuts) {
    SseParser p;
    Events out;
    auto sink = [&](const SseParser::Event& e) { out.emplace_back(e.event, e.data); };
    auto hook = [&](std::string_view rest) -> std::size_t {
      std::size_t n = 0;
      for (; rest.substr(n).starts_with(whole); n += whole.size()) {
        out.emplace_back("", "t");
        ++taken;
      }
      return n;
    };
    std::size_t at = 0;
    for (std::size_t cut : cuts) {
      EXPECT_TRUE(p.feed(std::string_view(text).substr(at, cut - at), sink, hook));
      at = cut;
    }
    EXPECT_TRUE(p.feed(std::string_view(text).substr(at), sink, hook));
    p.finish(sink);
    return out;
  };
  ASSERT_EQ(parse_with_hook({}), expected);
  EXPECT_EQ(taken, 7u);  // the whole ones at event starts, and no other
  for (std::size_t cut = 0; cut <= text.size(); ++cut) ASSERT_EQ(parse_with_hook({cut}), expected) << "split at " << cut;
  std::vector<std::size_t> every;
  for (std::size_t i = 1; i < text.size(); ++i) every.push_back(i);
  ASSERT_EQ(parse_with_hook(every), expected) << "byte by byte";
}

TEST(SseParser, ResetDropsPartialState) {
  SseParser p;
  Events out;
  auto sink = [&](const SseParser::Event& e) { out.emplace_back(e.event, e.data); };
  p.feed("event: e\ndata: half", sink);
  p.reset();
  p.feed("data: whole\n\n", sink);
  EXPECT_EQ(out, (Events{{"", "whole"}}));
}

}  // namespace
}  // namespace sb
