#include "exec/response_sink.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace sb {
namespace {

const char* kSse = "text/event-stream; charset=utf-8";

std::string tok(const char* text, const char* finish = "null") {
  return std::string("data: {\"choices\":[{\"index\":0,\"text\":\"") + text + "\",\"finish_reason\":" + finish +
         "}]}\n\n";
}

struct Fixture {
  StreamDecoder decoder{Api::completions};
  ResponseSink sink{decoder, true};
  RequestRecord rec;
  Fixture() {
    rec.dataset_prompt_tokens = 11;
    sink.begin(rec);
  }
};

TEST(ResponseSink, TokenEventsGetTheTimeOfTheReadThatDeliveredThem) {
  Fixture f;
  f.sink.on_headers(200, "OK", kSse);
  EXPECT_TRUE(f.sink.on_body(tok("a") + tok("b"), 100));
  EXPECT_TRUE(f.sink.on_body(tok("c", "\"length\"") + "data: [DONE]\n\n", 250));
  f.sink.on_complete(260);
  EXPECT_EQ(f.rec.outcome, Outcome::ok) << f.rec.error;
  EXPECT_EQ(f.rec.token_ns, (std::vector<Nanos>{100, 100, 250}));
  EXPECT_EQ(f.rec.generated_text, "abc");
  EXPECT_EQ(f.rec.output_tokens, 3);
  EXPECT_EQ(f.rec.token_source, TokenSource::event_count);
  EXPECT_EQ(f.rec.prompt_tokens, 11);  // no usage: the dataset's count stays
}

TEST(ResponseSink, EverySplitPointOfTheStreamGivesTheSameRecord) {
  const std::string stream = tok("x") + ": keep-alive\n\n" + tok("y") +
                             "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":9}}\r\n\r\n"
                             "data: [DONE]\n\n";
  for (std::size_t cut = 0; cut <= stream.size(); ++cut) {
    Fixture f;
    f.sink.on_headers(200, "OK", kSse);
    f.sink.on_body(stream.substr(0, cut), 1);
    f.sink.on_body(stream.substr(cut), 2);
    f.sink.on_complete(3);
    ASSERT_EQ(f.rec.outcome, Outcome::ok) << "cut " << cut << ": " << f.rec.error;
    ASSERT_EQ(f.rec.token_ns.size(), 2u) << "cut " << cut;
    EXPECT_EQ(f.rec.output_tokens, 9);
    EXPECT_EQ(f.rec.prompt_tokens, 5);
    EXPECT_EQ(f.rec.token_source, TokenSource::usage_chunk);
  }
}

// vLLM's completions chunk around `text` (already JSON-escaped): the same bytes around every text.
std::string vllm_chunk(const std::string& text, const char* finish = "null") {
  return std::string(R"(data: {"id":"cmpl-1","object":"text_completion","created":1,"model":"m","choices":[)") +
         R"({"index":0,"text":")" + text + R"(","logprobs":null,"finish_reason":)" + finish +
         R"(,"stop_reason":null}],"usage":null})" + "\n\n";
}

std::string replace_lf(std::string s) {
  for (std::size_t at = s.find('\n'); at != std::string::npos; at = s.find('\n', at + 2)) s.replace(at, 1, "\r\n");
  return s;
}

// Chunks that repeat the connection's shape are counted without a full decode (ChunkShape): the
// texts, times and counts are still every chunk's, escaped and non-ASCII texts included, and a
// chunk of that shape whose text is not valid JSON is still malformed.
TEST(ResponseSink, ChunksOfTheLearntShapeKeepTextsCountsAndMalformedChunks) {
  const std::string usage = R"(data: {"id":"cmpl-1","choices":[],"usage":{"prompt_tokens":4,"completion_tokens":6}})"
                            "\n\ndata: [DONE]\n\n";
  const std::string body = vllm_chunk(" a") + vllm_chunk(" b") + vllm_chunk(R"(\"q\")") + vllm_chunk(" \xc3\xa9") +
                           vllm_chunk(" c") + vllm_chunk(" d", "\"length\"") + usage;
  Fixture f;
  f.sink.on_headers(200, "OK", kSse);
  EXPECT_TRUE(f.sink.on_body(body.substr(0, 700), 10));
  EXPECT_TRUE(f.sink.on_body(body.substr(700), 20));
  f.sink.on_complete(30);
  EXPECT_EQ(f.rec.outcome, Outcome::ok) << f.rec.error;
  EXPECT_EQ(f.rec.generated_text, " a b\"q\" \xc3\xa9 c d");
  ASSERT_EQ(f.rec.token_ns.size(), 6u);
  EXPECT_EQ(f.rec.token_ns.front(), 10);
  EXPECT_EQ(f.rec.token_ns.back(), 20);
  EXPECT_EQ(f.rec.finish_reason, FinishReason::length);
  EXPECT_TRUE(f.rec.saw_text);
  EXPECT_EQ(f.rec.output_tokens, 6);
  EXPECT_EQ(f.rec.token_source, TokenSource::usage_chunk);

  Fixture bad;  // a raw control byte in the text: not JSON, though the bytes around it match
  bad.sink.on_headers(200, "OK", kSse);
  EXPECT_FALSE(bad.sink.on_body(vllm_chunk(" a") + vllm_chunk(" b") + vllm_chunk(" \x01") + vllm_chunk(" c"), 10));
  EXPECT_EQ(bad.rec.outcome, Outcome::malformed);
  EXPECT_EQ(bad.rec.token_ns.size(), 2u);
}

// Shaped chunks are taken where they lie in the read (ChunkShape::match_event) or, split across
// reads, by the SSE parser: at every split each token event still gets the time of the read that
// completed it, with its text, and a chunk of the learnt shape that is not JSON is still malformed.
TEST(ResponseSink, ShapedChunksGetTheTimeOfTheReadThatCompletedThemAtEverySplit) {
  const std::vector<std::string> events = {
      vllm_chunk(" a"), vllm_chunk(" b"), vllm_chunk(" c"), replace_lf(vllm_chunk(" d")), vllm_chunk(R"(\"e\")"),
      vllm_chunk(" f"), vllm_chunk(" g", "\"length\""),
      "data: {\"id\":\"cmpl-1\",\"choices\":[],\"usage\":{\"prompt_tokens\":4,\"completion_tokens\":7}}\n\n",
      "data: [DONE]\n\n"};
  std::string body;
  std::vector<std::size_t> ends;  // where each token event's blank line ends (a CRLF one at its CR)
  for (const std::string& e : events) {
    body += e;
    ends.push_back(body.size() - (e.ends_with("\r\n\r\n") ? 1 : 0));
  }
  for (std::size_t cut = 0; cut <= body.size(); ++cut) {
    Fixture f;
    f.sink.on_headers(200, "OK", kSse);
    ASSERT_TRUE(f.sink.on_body(std::string_view(body).substr(0, cut), 10));
    ASSERT_TRUE(f.sink.on_body(std::string_view(body).substr(cut), 20));
    f.sink.on_complete(30);
    ASSERT_EQ(f.rec.outcome, Outcome::ok) << "cut " << cut << ": " << f.rec.error;
    ASSERT_EQ(f.rec.token_ns.size(), 7u) << "cut " << cut;
    for (std::size_t i = 0; i < 7; ++i) ASSERT_EQ(f.rec.token_ns[i], ends[i] <= cut ? 10 : 20) << "cut " << cut << " token " << i;
    EXPECT_EQ(f.rec.generated_text, " a b c d\"e\" f g");
    EXPECT_EQ(f.rec.output_tokens, 7);

    Fixture bad;  // the same with a raw control byte in the fourth text: malformed, three tokens counted
    bad.sink.on_headers(200, "OK", kSse);
    const std::string broken = vllm_chunk(" a") + vllm_chunk(" b") + vllm_chunk(" c") + vllm_chunk(" \x01") + vllm_chunk(" e");
    const std::size_t at = std::min(cut, broken.size());
    const bool first = bad.sink.on_body(std::string_view(broken).substr(0, at), 10);
    if (first) bad.sink.on_body(std::string_view(broken).substr(at), 20);
    ASSERT_EQ(bad.rec.outcome, Outcome::malformed) << "cut " << cut;
    ASSERT_EQ(bad.rec.token_ns.size(), 3u) << "cut " << cut;
  }
}

TEST(ResponseSink, UsageInTheLastChoicesChunkIsRecognised) {
  Fixture f;
  f.sink.on_headers(200, "OK", kSse);
  f.sink.on_body(tok("a") +
                     "data: {\"choices\":[{\"index\":0,\"text\":\"b\",\"finish_reason\":\"stop\"}],"
                     "\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":2}}\n\n",
                 7);
  f.sink.on_complete(8);
  EXPECT_EQ(f.rec.outcome, Outcome::ok);
  EXPECT_EQ(f.rec.token_source, TokenSource::usage_in_choice);
  EXPECT_EQ(f.rec.output_tokens, 2);
  EXPECT_EQ(f.rec.prompt_tokens, 3);
}

TEST(ResponseSink, HttpErrorKeepsStatusAndTheJsonMessage) {
  Fixture f;
  f.sink.on_headers(400, "Bad Request", "application/json");
  f.sink.on_body(R"({"object":"error","message":"max_tokens too large","type":"BadRequestError"})", 5);
  f.sink.on_complete(6);
  EXPECT_EQ(f.rec.outcome, Outcome::http_error);
  EXPECT_EQ(f.rec.http_status, 400);
  EXPECT_EQ(f.rec.error, "HTTP 400 Bad Request: max_tokens too large");
}

TEST(ResponseSink, HttpErrorWithoutJsonUsesTheReasonPhrase) {
  Fixture f;
  f.sink.on_headers(503, "Service Unavailable", "text/html");
  f.sink.on_body("<html>busy</html>", 5);
  f.sink.on_complete(6);
  EXPECT_EQ(f.rec.outcome, Outcome::http_error);
  EXPECT_EQ(f.rec.error, "HTTP 503 Service Unavailable");
}

TEST(ResponseSink, ChunkThatIsNotJsonIsMalformedAndStopsTheRead) {
  Fixture f;
  f.sink.on_headers(200, "OK", kSse);
  EXPECT_TRUE(f.sink.on_body(tok("a"), 1));
  EXPECT_FALSE(f.sink.on_body("data: {\"choices\": [oops\n\n" + tok("b"), 2));
  EXPECT_EQ(f.rec.outcome, Outcome::malformed);
  EXPECT_NE(f.rec.error.find("not valid JSON: {\"choices\": [oops"), std::string::npos) << f.rec.error;
  EXPECT_EQ(f.rec.token_ns.size(), 1u);
}

TEST(ResponseSink, StreamWithoutDoneOrFinishReasonIsDropped) {
  Fixture f;
  f.sink.on_headers(200, "OK", kSse);
  f.sink.on_body(tok("a") + tok("b"), 1);
  f.sink.on_complete(2);
  EXPECT_EQ(f.rec.outcome, Outcome::dropped);
  EXPECT_NE(f.rec.error.find("after 2 token events"), std::string::npos);
}

TEST(ResponseSink, CleanStreamWithoutChoicesIsNoTokensWithVllmsMessage) {
  Fixture f;
  f.sink.on_headers(200, "OK", kSse);
  f.sink.on_body("data: [DONE]\n\n", 1);
  f.sink.on_complete(2);
  EXPECT_EQ(f.rec.outcome, Outcome::no_tokens);
  EXPECT_EQ(f.rec.error,
            "Never received a valid chunk to calculate TTFT.This response will be marked as failed!");
}

TEST(ResponseSink, ErrorEventInsideTheStreamIsAnHttpError) {
  Fixture f;
  f.sink.on_headers(200, "OK", kSse);
  f.sink.on_body(tok("a") + "data: {\"error\":{\"message\":\"engine died\"}}\n\n", 1);
  EXPECT_EQ(f.rec.outcome, Outcome::http_error);
  EXPECT_EQ(f.rec.error, "error event in the stream: engine died");
}

TEST(ResponseSink, NonStreamingBodyIsOneEventWithUsageFromTheBody) {
  Fixture f;
  f.sink.on_headers(200, "OK", "application/json");
  f.sink.on_body(R"({"choices":[{"index":0,"text":"hello","finish_reason":"length"}],)", 40);
  f.sink.on_body(R"("usage":{"prompt_tokens":4,"completion_tokens":16}})", 50);
  f.sink.on_complete(55);
  EXPECT_EQ(f.rec.outcome, Outcome::ok) << f.rec.error;
  EXPECT_EQ(f.rec.token_ns, std::vector<Nanos>{55});
  EXPECT_EQ(f.rec.generated_text, "hello");
  EXPECT_EQ(f.rec.token_source, TokenSource::usage_body);
  EXPECT_EQ(f.rec.output_tokens, 16);
}

TEST(ResponseSink, TransportFailureKeepsTokensSoFar) {
  Fixture f;
  f.sink.on_headers(200, "OK", kSse);
  f.sink.on_body(tok("a"), 1);
  f.sink.on_transport_failure(Outcome::dropped, "connection closed");
  EXPECT_EQ(f.rec.outcome, Outcome::dropped);
  EXPECT_EQ(f.rec.output_tokens, 1);
  EXPECT_EQ(f.rec.token_source, TokenSource::event_count);
}

TEST(ResponseSink, BeginClearsWhatAFailedAttemptLeft) {
  Fixture f;
  f.sink.on_headers(500, "Internal Server Error", "text/plain");
  f.sink.on_complete(1);
  ASSERT_EQ(f.rec.outcome, Outcome::http_error);
  f.sink.begin(f.rec);
  EXPECT_EQ(f.rec.outcome, Outcome::ok);
  EXPECT_EQ(f.rec.http_status, 0);
  EXPECT_TRUE(f.rec.error.empty());
  EXPECT_EQ(f.rec.first_byte_ns, -1);
}

TEST(ResponseSink, RecordsTheFinishReasonAndWhetherAnyTextCame) {
  Fixture f;
  f.sink.on_headers(200, "OK", kSse);
  f.sink.on_body(tok("a") + tok("b", "\"length\"") + "data: [DONE]\n\n", 1);
  f.sink.on_complete(2);
  EXPECT_EQ(f.rec.finish_reason, FinishReason::length);
  EXPECT_TRUE(f.rec.saw_text);

  Fixture g;  // events with empty text only, ended by "stop"
  g.sink.on_headers(200, "OK", kSse);
  g.sink.on_body(tok("") + tok("", "\"stop\"") + "data: [DONE]\n\n", 1);
  g.sink.on_complete(2);
  EXPECT_EQ(g.rec.outcome, Outcome::ok) << g.rec.error;
  EXPECT_EQ(g.rec.finish_reason, FinishReason::stop);
  EXPECT_FALSE(g.rec.saw_text);

  Fixture h;  // a reason we do not name, and none at all
  h.sink.on_headers(200, "OK", kSse);
  h.sink.on_body(tok("x", "\"content_filter\"") + "data: [DONE]\n\n", 1);
  h.sink.on_complete(2);
  EXPECT_EQ(h.rec.finish_reason, FinishReason::other);
  h.sink.begin(h.rec);  // a retry starts clean
  EXPECT_EQ(h.rec.finish_reason, FinishReason::none);
  EXPECT_FALSE(h.rec.saw_text);
}

// llama-server's completions stream: a chunk per token, then an empty-text last chunk with
// finish_reason, usage and `timings`, then [DONE].
std::string llama_cpp_stream() {
  return tok("a") + tok("b") +
         "data: {\"choices\":[{\"text\":\"\",\"index\":0,\"finish_reason\":\"length\"}],\"object\":\"text_completion\","
         "\"usage\":{\"completion_tokens\":2,\"prompt_tokens\":9,\"total_tokens\":11},"
         "\"timings\":{\"cache_n\":3,\"prompt_n\":6,\"prompt_ms\":41.232,\"prompt_per_token_ms\":6.872,"
         "\"prompt_per_second\":145.5,\"predicted_n\":2,\"predicted_ms\":12.5,\"predicted_per_token_ms\":12.5,"
         "\"predicted_per_second\":160.0}}\n\n"
         "data: [DONE]\n\n";
}

TEST(ResponseSink, EverySplitPointOfALlamaCppStreamKeepsItsServerTimings) {
  const std::string stream = llama_cpp_stream();
  for (std::size_t cut = 0; cut <= stream.size(); ++cut) {
    Fixture f;
    f.sink.on_headers(200, "OK", kSse);
    f.sink.on_body(stream.substr(0, cut), 1);
    f.sink.on_body(stream.substr(cut), 2);
    f.sink.on_complete(3);
    ASSERT_EQ(f.rec.outcome, Outcome::ok) << "cut " << cut << ": " << f.rec.error;
    ASSERT_EQ(f.rec.server.prefill_ms, 41.232f) << "cut " << cut;
    EXPECT_EQ(f.rec.server.decode_ms, 12.5f);
    EXPECT_EQ(f.rec.server.prefill_tokens, 6);
    EXPECT_EQ(f.rec.server.decode_tokens, 2);
    EXPECT_EQ(f.rec.cached_prompt_tokens, 3);
    EXPECT_EQ(f.rec.prompt_tokens, 9);
  }
}

TEST(ResponseSink, CachedTokensOfVllmUsageAreKeptWithoutTimings) {
  Fixture f;
  f.sink.on_headers(200, "OK", kSse);
  f.sink.on_body(tok("a", "\"stop\"") +
                     "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":1024,\"completion_tokens\":1,"
                     "\"prompt_tokens_details\":{\"cached_tokens\":768}}}\n\ndata: [DONE]\n\n",
                 5);
  f.sink.on_complete(6);
  EXPECT_EQ(f.rec.outcome, Outcome::ok);
  EXPECT_EQ(f.rec.cached_prompt_tokens, 768);
  EXPECT_FALSE(f.rec.server.has_prefill());
}

TEST(ResponseSink, BeginClearsTheServerTimingsOfTheAttemptBefore) {
  Fixture f;
  f.sink.on_headers(200, "OK", kSse);
  f.sink.on_body(llama_cpp_stream(), 1);
  f.sink.on_complete(2);
  ASSERT_TRUE(f.rec.server.has_prefill());
  f.sink.begin(f.rec);
  EXPECT_FALSE(f.rec.server.has_prefill());
  EXPECT_EQ(f.rec.server.decode_tokens, -1);
  EXPECT_EQ(f.rec.cached_prompt_tokens, -1);
}

TEST(ResponseSink, NonStreamingLlamaCppBodyKeepsItsTimings) {
  Fixture f;
  f.sink.on_headers(200, "OK", "application/json");
  f.sink.on_body("{\"choices\":[{\"text\":\" Paris.\",\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":5,"
                 "\"completion_tokens\":2},\"timings\":{\"cache_n\":0,\"prompt_n\":5,\"prompt_ms\":12.0,"
                 "\"predicted_n\":2,\"predicted_ms\":9.5}}",
                 4);
  f.sink.on_complete(5);
  EXPECT_EQ(f.rec.outcome, Outcome::ok);
  EXPECT_EQ(f.rec.server.prefill_ms, 12.0f);
  EXPECT_EQ(f.rec.cached_prompt_tokens, 0);
}

}  // namespace
}  // namespace sb
