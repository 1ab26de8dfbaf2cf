#include "net/http_call.hpp"

#include <gtest/gtest.h>

#include <thread>

#include "core/error.hpp"
#include "net/fake_server.hpp"
#include "net/tls_fake_server.hpp"

namespace sb {
namespace {

Endpoint local(std::uint16_t port) { return parse_base_url("http://127.0.0.1:" + std::to_string(port)); }

std::string failure_of(const Endpoint& ep, double timeout_s) {
  try {
    http_call(ep, "GET", "/v1/models", {}, "", timeout_s);
  } catch (const UserError& e) {
    EXPECT_EQ(e.code(), ExitCode::unreachable);
    return e.what();
  }
  return "no error";
}

TEST(HttpCall, ReturnsStatusBodyAndContentTypeAndSendsHeaders) {
  std::string seen_head;
  test::FakeServer server([&](test::FakeConn& c, const test::FakeRequest& r) {
    seen_head = r.head;
    return c.send(test::json_response(200, "OK", R"({"data":[{"id":"m"}]})"));
  });
  Endpoint ep = local(server.port());
  ep.base_path = "/api";
  const HttpReply reply = http_call(ep, "GET", "/v1/models", {{"Authorization", "Bearer k"}}, "", 5);
  EXPECT_EQ(reply.status, 200);
  EXPECT_EQ(reply.reason, "OK");
  EXPECT_EQ(reply.content_type, "application/json");
  EXPECT_EQ(reply.body, R"({"data":[{"id":"m"}]})");
  EXPECT_EQ(seen_head.rfind("GET /api/v1/models HTTP/1.1", 0), 0u) << seen_head;
  EXPECT_NE(seen_head.find("Authorization: Bearer k"), std::string::npos);
}

TEST(HttpCall, PostsTheBodyAndReturnsErrorStatusesWithoutThrowing) {
  std::string seen_body;
  test::FakeServer server([&](test::FakeConn& c, const test::FakeRequest& r) {
    seen_body = r.body;
    return c.send(test::json_response(401, "Unauthorized", R"({"error":"bad key"})"));
  });
  const HttpReply reply = http_call(local(server.port()), "POST", "/tokenize", {}, R"({"prompt":"x"})", 5);
  EXPECT_EQ(reply.status, 401);
  EXPECT_EQ(reply.reason, "Unauthorized");
  EXPECT_EQ(seen_body, R"({"prompt":"x"})");
}

TEST(HttpCall, ConnectionRefusedNamesHostPortAndTheBindHint) {
  const std::uint16_t port = test::FakeServer::closed_port();
  const std::string msg = failure_of(local(port), 5);
  EXPECT_NE(msg.find("connection refused by 127.0.0.1:" + std::to_string(port)), std::string::npos) << msg;
  EXPECT_NE(msg.find("listening on port " + std::to_string(port)), std::string::npos) << msg;
  EXPECT_NE(msg.find("0.0.0.0"), std::string::npos) << msg;
}

TEST(HttpCall, StalledServerTimesOut) {
  test::FakeServer server([](test::FakeConn& c, const test::FakeRequest&) {
    c.sleep_ms(2000);
    return false;
  });
  const std::string msg = failure_of(local(server.port()), 0.2);
  EXPECT_NE(msg.find("no answer within the timeout"), std::string::npos) << msg;
  EXPECT_NE(msg.find("http://127.0.0.1:" + std::to_string(server.port()) + "/v1/models"), std::string::npos);
}

TEST(HttpCall, TlsHandshakeAgainstPlainHttpFailsClearly) {
  test::FakeServer server([](test::FakeConn& c, const test::FakeRequest&) {
    return c.send(test::json_response(200, "OK", "{}"));
  });
  Endpoint ep = local(server.port());
  ep.tls = true;
  const std::string msg = failure_of(ep, 0.5);  // the server never answers the ClientHello
  EXPECT_NE(msg.find("TLS handshake with 127.0.0.1:" + std::to_string(server.port()) + " failed"),
            std::string::npos) << msg;
  EXPECT_NE(msg.find("the server did not answer TLS (is it plain HTTP? try http://)"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("timed out"), std::string::npos) << msg;
}

TEST(HttpCall, TlsHandshakeAnsweredInPlainHttpSaysItIsPlainHttp) {
  // A server that answers the ClientHello's bytes with a plain-HTTP 400 at once (as uvicorn does).
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), len), 0);
  ASSERT_EQ(::listen(fd, 4), 0);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  std::thread answer([fd] {
    const int c = ::accept(fd, nullptr, nullptr);
    char buf[512];
    (void)::recv(c, buf, sizeof buf, 0);
    const std::string reply = "HTTP/1.1 400 Bad Request\r\nContent-Length: 11\r\n\r\nBad Request";
    (void)::send(c, reply.data(), reply.size(), MSG_NOSIGNAL);
    ::shutdown(c, SHUT_WR);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    ::close(c);
  });
  Endpoint ep = local(ntohs(addr.sin_port));
  ep.tls = true;
  const std::string msg = failure_of(ep, 5);
  answer.join();
  ::close(fd);
  EXPECT_NE(msg.find("the server did not answer TLS (is it plain HTTP? try http://)"), std::string::npos) << msg;
}

}  // namespace
}  // namespace sb

namespace sb {
namespace {

Endpoint tls_local(std::uint16_t port, bool insecure) {
  Endpoint ep = parse_base_url("https://localhost:" + std::to_string(port));
  ep.insecure = insecure;
  return ep;
}

TEST(HttpCallTls, InsecureAcceptsASelfSignedCertificate) {
  test::TlsFakeServer server(test::json_response(200, "OK", R"({"data":[]})"));
  const HttpReply reply = http_call(tls_local(server.port(), true), "GET", "/v1/models", {}, "", 5);
  EXPECT_EQ(reply.status, 200);
  EXPECT_EQ(reply.body, R"({"data":[]})");
}

TEST(HttpCallTls, VerificationRejectsASelfSignedCertificateAndSaysWhy) {
  test::TlsFakeServer server(test::json_response(200, "OK", "{}"));
  const std::string msg = failure_of(tls_local(server.port(), false), 5);
  EXPECT_NE(msg.find("certificate verification failed: self-signed certificate"), std::string::npos) << msg;
  EXPECT_NE(msg.find("--insecure"), std::string::npos) << msg;
  EXPECT_EQ(server.handshakes(), 0);
}

}  // namespace
}  // namespace sb
