// ResponseReader on bytes alone: interim responses, blank lines before the status line, bodies that
// end at close, malformed framing, and every split of a response into two reads.
#include "exec/response_reader.hpp"

#include <gtest/gtest.h>

#include <cstring>

#include "exec/worker_rig.hpp"

namespace sb {
namespace {

// One response read in the given pieces, each read stamped with its index + 1.
struct ReadResult {
  ResponseReader::Step step = ResponseReader::Step::more;
  std::string error;
  RequestRecord rec;
  bool keep_alive = false;
  int keep_alive_timeout_s = -2;  // after done
  bool ended_at_eof = false;
};

ReadResult read_in_pieces(const std::vector<std::string>& pieces, bool eof_after = false) {
  StreamDecoder decoder{Api::completions};
  ResponseSink sink{decoder, true};
  ResponseReader reader;
  ReadBuffer buf;
  ReadResult out;
  out.rec.expected_output_tokens = 3;
  sink.begin(out.rec);
  reader.start();
  Nanos t = 0;
  for (const std::string& p : pieces) {
    ++t;
    std::memcpy(buf.prepare(p.size()).data(), p.data(), p.size());
    buf.commit(p.size());
    out.step = reader.on_read(buf, sink, out.rec, t, out.error);
    if (out.step != ResponseReader::Step::more) break;
  }
  if (out.step == ResponseReader::Step::done) {
    sink.on_complete(t);
    out.keep_alive = reader.keep_alive();
    out.keep_alive_timeout_s = reader.keep_alive_timeout_s();
  } else if (out.step == ResponseReader::Step::more && eof_after && reader.end_at_eof()) {
    out.ended_at_eof = true;
    sink.on_complete(t);
  }
  return out;
}

TEST(ResponseReader, InterimResponseAndBlankLinesAreSkippedAtEveryTwoPieceSplit) {
  // Blank lines before the interim response and between it and the final one (a split of those was
  // "bad version" until http_response_fuzz found it).
  const std::string response = "\r\nHTTP/1.1 100 Continue\r\n\r\n\r\n\r\n" + test::worker_sse_response();
  for (std::size_t cut = 1; cut < response.size(); ++cut) {
    const ReadResult r = read_in_pieces({response.substr(0, cut), response.substr(cut)});
    ASSERT_EQ(r.step, ResponseReader::Step::done) << "cut at " << cut << ": " << r.error;
    test::expect_streamed_ok(r.rec);
    EXPECT_TRUE(r.keep_alive);
    // The first read holds the response's first byte unless it held only the blank line.
    EXPECT_EQ(r.rec.first_byte_ns, cut <= 2 ? 2 : 1) << "cut at " << cut;
  }
}

// Found by http_response_fuzz's long run: a chunked JSON response whose trailer says
// "Content-Type: text/event-stream". Read whole, Beast had merged the trailer into the header
// before we read it (a stream with no events: no_tokens); split, the header alone decided (not a
// stream: malformed). The header alone decides now, however the reads split.
TEST(ResponseReader, TrailerFieldsNeverDecideWhatTheHeaderSaidAtEveryTwoPieceSplit) {
  const std::string response =
      "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
      "0\r\nContent-Type: text/event-stream\r\n\r\n";
  const ReadResult whole = read_in_pieces({response});
  ASSERT_EQ(whole.step, ResponseReader::Step::done) << whole.error;
  EXPECT_EQ(whole.rec.outcome, Outcome::malformed) << whole.rec.error;  // an empty JSON body
  for (std::size_t cut = 1; cut < response.size(); ++cut) {
    const ReadResult r = read_in_pieces({response.substr(0, cut), response.substr(cut)});
    ASSERT_EQ(r.step, ResponseReader::Step::done) << "cut at " << cut << ": " << r.error;
    EXPECT_EQ(r.rec.outcome, whole.rec.outcome) << "cut at " << cut << ": " << r.rec.error;
    EXPECT_EQ(r.rec.error, whole.rec.error) << "cut at " << cut;
  }
}

// llama.cpp's server says its idle limit in every reply; a trailer cannot say it, and the next
// response without the field says none.
TEST(ResponseReader, KeepAliveTimeoutOfTheHeaderAtEveryTwoPieceSplit) {
  std::string response = test::worker_sse_response();
  response.insert(response.find("\r\n") + 2, "Keep-Alive: timeout=5, max=100\r\n");
  for (std::size_t cut = 1; cut < response.size(); ++cut) {
    const ReadResult r = read_in_pieces({response.substr(0, cut), response.substr(cut)});
    ASSERT_EQ(r.step, ResponseReader::Step::done) << "cut at " << cut << ": " << r.error;
    EXPECT_EQ(r.keep_alive_timeout_s, 5) << "cut at " << cut;
  }
  EXPECT_EQ(read_in_pieces({test::worker_sse_response()}).keep_alive_timeout_s, -1);
  const std::string trailer = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
                              "0\r\nKeep-Alive: timeout=9\r\n\r\n";
  EXPECT_EQ(read_in_pieces({trailer}).keep_alive_timeout_s, -1);
}

TEST(ResponseReader, BodyEndingAtCloseCompletesOnlyAtEndOfFile) {
  const std::string response = std::string("HTTP/1.0 200 OK\r\nContent-Type: text/event-stream\r\n\r\n") +
                               test::token_event("a") + test::token_event("b") + test::token_event("c", true) +
                               "data: [DONE]\n\n";
  const ReadResult open = read_in_pieces({response});
  EXPECT_EQ(open.step, ResponseReader::Step::more);
  const ReadResult closed = read_in_pieces({response}, true);
  ASSERT_TRUE(closed.ended_at_eof);
  EXPECT_EQ(closed.rec.outcome, Outcome::ok) << closed.rec.error;
  EXPECT_EQ(closed.rec.generated_text, "abc");
}

TEST(ResponseReader, EndOfFileBeforeTheHeaderIsNoResponse) {
  const ReadResult r = read_in_pieces({"HTTP/1.1 200 OK\r\nContent-Ty"}, true);
  EXPECT_EQ(r.step, ResponseReader::Step::more);
  EXPECT_FALSE(r.ended_at_eof);
}

TEST(ResponseReader, BadChunkSizeIsMalformedWithBeastsReason) {
  const ReadResult r = read_in_pieces(
      {"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\nxx\r\n"});
  EXPECT_EQ(r.step, ResponseReader::Step::malformed);
  EXPECT_FALSE(r.error.empty());
}

TEST(ResponseReader, ConnectionCloseHeaderEndsKeepAlive) {
  std::string response = test::worker_sse_response();
  response.insert(response.find("\r\n") + 2, "Connection: close\r\n");
  const ReadResult r = read_in_pieces({response});
  ASSERT_EQ(r.step, ResponseReader::Step::done) << r.error;
  test::expect_streamed_ok(r.rec);
  EXPECT_FALSE(r.keep_alive);
}

}  // namespace
}  // namespace sb
