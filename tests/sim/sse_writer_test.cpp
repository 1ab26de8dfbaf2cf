#include "sim/sse_writer.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <set>
#include <vector>

#include "protocol/sse_parser.hpp"

namespace sb::sim {
namespace {

std::vector<std::string> events_of(const std::string& text) {
  std::vector<std::string> out;
  SseParser p;
  p.feed(text, [&](const SseParser::Event& e) { out.emplace_back(e.data); });
  return out;
}

TEST(SseWriter, CompletionsChunkKnownBytes) {
  SseWriter w({Api::completions, "cmpl-7", "sim-model", 1700000000});
  std::string out;
  w.append_token(out, " hi", {});
  EXPECT_EQ(out,
            "data: {\"id\":\"cmpl-7\",\"object\":\"text_completion\",\"created\":1700000000,\"model\":\"sim-model\","
            "\"choices\":[{\"index\":0,\"text\":\" hi\",\"logprobs\":null,\"finish_reason\":null}]}\n\n");
}

TEST(SseWriter, ChatStreamParsesBackWithRoleUsageAndDone) {
  SseWriter w({Api::chat, "chatcmpl-x", "m\"q", 5});
  std::string out;
  const Usage u{11, 2};
  w.append_token(out, " a", {.first = true});
  w.append_token(out, " b", {.finish_reason = "length"});
  w.append_usage_chunk(out, u);
  SseWriter::append_done(out);
  const auto ev = events_of(out);
  ASSERT_EQ(ev.size(), 4u);
  const auto first = nlohmann::json::parse(ev[0]);
  EXPECT_EQ(first["object"], "chat.completion.chunk");
  EXPECT_EQ(first["model"], "m\"q");  // escaped once, parsed back intact
  EXPECT_EQ(first["choices"][0]["delta"]["role"], "assistant");
  EXPECT_EQ(first["choices"][0]["delta"]["content"], " a");
  EXPECT_TRUE(first["choices"][0]["finish_reason"].is_null());
  const auto last = nlohmann::json::parse(ev[1]);
  EXPECT_FALSE(last["choices"][0]["delta"].contains("role"));
  EXPECT_EQ(last["choices"][0]["finish_reason"], "length");
  EXPECT_FALSE(last.contains("usage"));
  const auto usage = nlohmann::json::parse(ev[2]);
  EXPECT_TRUE(usage["choices"].empty());
  EXPECT_EQ(usage["usage"]["prompt_tokens"], 11);
  EXPECT_EQ(usage["usage"]["completion_tokens"], 2);
  EXPECT_EQ(usage["usage"]["total_tokens"], 13);
  EXPECT_EQ(ev[3], "[DONE]");
}

TEST(SseWriter, UsageInLastChoicesChunk) {
  SseWriter w({Api::completions, "c", "m", 0});
  std::string out;
  const Usage u{3, 1};
  w.append_token(out, " z", {.first = true, .finish_reason = "stop", .usage = &u});
  const auto j = nlohmann::json::parse(events_of(out).at(0));
  EXPECT_EQ(j["choices"][0]["text"], " z");
  EXPECT_EQ(j["choices"][0]["finish_reason"], "stop");
  EXPECT_EQ(j["usage"]["completion_tokens"], 1);
}

TEST(SseWriter, MalformedEventIsNotJson) {
  SseWriter w({Api::completions, "c", "m", 0});
  std::string out;
  w.append_malformed(out);
  const auto ev = events_of(out);
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_TRUE(nlohmann::json::parse(ev[0], nullptr, false).is_discarded());
}

TEST(SseWriter, FullBodies) {
  const auto c = nlohmann::json::parse(
      SseWriter({Api::completions, "cmpl-1", "m", 9}).full_body(" x \"y\"", "length", {4, 2}));
  EXPECT_EQ(c["object"], "text_completion");
  EXPECT_EQ(c["choices"][0]["text"], " x \"y\"");
  EXPECT_EQ(c["usage"]["total_tokens"], 6);
  const auto chat = nlohmann::json::parse(SseWriter({Api::chat, "chatcmpl-1", "m", 9}).full_body(" w", "stop", {1, 1}));
  EXPECT_EQ(chat["object"], "chat.completion");
  EXPECT_EQ(chat["choices"][0]["message"]["role"], "assistant");
  EXPECT_EQ(chat["choices"][0]["message"]["content"], " w");
  EXPECT_EQ(chat["choices"][0]["finish_reason"], "stop");
}

TEST(SseWriter, FillerWordsAreDeterministicAndVaried) {
  std::set<std::string_view> seen;
  for (int i = 0; i < 64; ++i) {
    EXPECT_EQ(filler_word(42, i), filler_word(42, i));
    EXPECT_EQ(filler_word(42, i).front(), ' ');
    seen.insert(filler_word(42, i));
  }
  EXPECT_GT(seen.size(), 10u);
}

}  // namespace
}  // namespace sb::sim
