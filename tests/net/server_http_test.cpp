#include "net/server_http.hpp"

#include <gtest/gtest.h>

namespace sb {
namespace {

TEST(ServerHttp, ChunkedHead) {
  std::string out;
  append_head(out, {200, "text/event-stream", true, 0, true});
  EXPECT_EQ(out,
            "HTTP/1.1 200 OK\r\nServer: servebench-sim\r\nContent-Type: text/event-stream\r\n"
            "Transfer-Encoding: chunked\r\nCache-Control: no-cache\r\nConnection: keep-alive\r\n\r\n");
}

TEST(ServerHttp, ContentLengthHead) {
  std::string out;
  append_head(out, {429, "application/json", false, 17, false});
  EXPECT_EQ(out,
            "HTTP/1.1 429 Too Many Requests\r\nServer: servebench-sim\r\nContent-Type: application/json\r\n"
            "Content-Length: 17\r\nConnection: close\r\n\r\n");
}

TEST(ServerHttp, ChunkSizeIsPatchedInPlace) {
  std::string out = "x";
  const auto at = begin_chunk(out);
  out += std::string(300, 'a');
  end_chunk(out, at);
  append_last_chunk(out);
  EXPECT_EQ(out, "x0000012c\r\n" + std::string(300, 'a') + "\r\n0\r\n\r\n");  // 300 = 0x12c
}

TEST(ServerHttp, JsonEscaping) {
  std::string out;
  append_json_escaped(out, "a\"b\\c\nd\te\x01\xc3\xa9");
  EXPECT_EQ(out, "a\\\"b\\\\c\\nd\\te\\u0001\xc3\xa9");  // UTF-8 passes through
}

TEST(ServerHttp, ReasonPhrases) {
  EXPECT_EQ(reason_phrase(503), "Service Unavailable");
  EXPECT_EQ(reason_phrase(401), "Unauthorized");
  EXPECT_EQ(reason_phrase(599), "Unknown");
}

}  // namespace
}  // namespace sb
