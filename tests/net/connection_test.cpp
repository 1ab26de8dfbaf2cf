// net::Connection on loopback: plain and TLS decided by the endpoint, each connect failure at its
// step, reads and writes, deadlines, and usable() noticing a server that closed an idle connection.
#include "net/connection.hpp"

#include <gtest/gtest.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <thread>

#include "net/fake_server.hpp"
#include "net/tls_fake_server.hpp"

namespace sb {
namespace {

namespace asio = boost::asio;

Deadline in_seconds(double s) {
  return std::chrono::steady_clock::now() +
         std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(s));
}

// Runs `body` as a coroutine on a fresh io_context until it finishes.
template <class Body>
void run_coro(asio::io_context& ioc, Body body) {
  asio::co_spawn(ioc, std::move(body), asio::detached);
  ioc.run();
  ioc.restart();
}

// One request over `conn` (connected first); what came back until the response's end or EOF.
struct ConnCall {
  ConnectError error;
  std::string reply;
  boost::system::error_code read_error;
};

asio::awaitable<void> conn_call(Connection& conn, ConnCall& out, std::string request) {
  co_await conn.connect(in_seconds(5), out.error);
  if (out.error.failed()) co_return;
  boost::system::error_code ec;
  co_await conn.write(asio::buffer(request), asio::const_buffer(), ec);
  char buf[4096];
  while (!ec) {
    const std::size_t n = co_await conn.read_some(asio::buffer(buf), ec);
    out.reply.append(buf, n);
    if (out.reply.find("\r\n\r\n{}") != std::string::npos) break;
  }
  out.read_error = ec;
}

// Connects, sends a request the server never answers, and reads with a deadline 50 ms away.
asio::awaitable<void> conn_read_after_deadline(Connection& conn, ConnCall& out) {
  co_await conn.connect(in_seconds(5), out.error);
  boost::system::error_code ec;
  const std::string req = "GET / HTTP/1.1\r\n\r\n";
  co_await conn.write(asio::buffer(req), asio::const_buffer(), ec);
  conn.expires_at(in_seconds(0.05));
  char buf[64];
  co_await conn.read_some(asio::buffer(buf), ec);
  out.read_error = ec;
}

Endpoint conn_endpoint(const std::string& scheme, const std::string& host, std::uint16_t port) {
  return parse_base_url(scheme + "://" + host + ":" + std::to_string(port));
}

TEST(Connection, PlainRoundTripThenUsableUntilTheServerCloses) {
  std::atomic<bool> close_now{false};
  test::FakeServer server([&](test::FakeConn& c, const test::FakeRequest&) {
    c.send(test::json_response(200, "OK", "{}"));
    while (!close_now) c.sleep_ms(2);
    return false;  // closes the connection
  });
  struct ReleaseOnExit {  // lets the handler return even when an assertion ends the test early
    std::atomic<bool>& flag;
    ~ReleaseOnExit() { flag = true; }
  } release{close_now};
  asio::io_context ioc(1);
  Dialer dialer(ioc, conn_endpoint("http", "127.0.0.1", server.port()));
  EXPECT_TRUE(dialer.setup_error().empty());
  auto conn = dialer.open();
  EXPECT_FALSE(conn->tls());
  EXPECT_FALSE(conn->usable());  // not connected yet
  ConnCall call;
  run_coro(ioc, conn_call(*conn, call, "GET / HTTP/1.1\r\nHost: x\r\n\r\n"));
  ASSERT_FALSE(call.error.failed()) << call.error.ec.message();
  EXPECT_FALSE(call.read_error) << call.read_error.message();
  EXPECT_EQ(call.reply, test::json_response(200, "OK", "{}"));
  EXPECT_TRUE(conn->usable());
  close_now = true;
  bool stale = false;
  for (int i = 0; i < 200 && !stale; ++i) {  // the FIN takes a moment to arrive
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    stale = !conn->usable();
  }
  EXPECT_TRUE(stale) << "usable() never saw the server's close";
  conn->close();
  conn->close();  // twice is fine
  EXPECT_FALSE(conn->usable());
}

// Writes `request` on a connected `conn` and reads until the response's "{}" body.
asio::awaitable<void> conn_again(Connection& conn, ConnCall& out, std::string request) {
  boost::system::error_code ec;
  co_await conn.write(asio::buffer(request), asio::const_buffer(), ec);
  char buf[4096];
  while (!ec && out.reply.find("\r\n\r\n{}") == std::string::npos) {
    const std::size_t n = co_await conn.read_some(asio::buffer(buf), ec);
    out.reply.append(buf, n);
  }
  out.read_error = ec;
}

TEST(Connection, ExtraCrlfAfterAResponseIsConsumedAndTheConnectionStaysUsable) {
  test::FakeServer server([](test::FakeConn& c, const test::FakeRequest&) {
    c.send(test::json_response(200, "OK", "{}"));
    c.sleep_ms(20);
    return c.send("\r\n");  // llama.cpp-style stray CRLF, after the response, in its own segment
  });
  asio::io_context ioc(1);
  Dialer dialer(ioc, conn_endpoint("http", "127.0.0.1", server.port()));
  auto conn = dialer.open();
  ConnCall call;
  run_coro(ioc, conn_call(*conn, call, "GET / HTTP/1.1\r\nHost: x\r\n\r\n"));
  ASSERT_FALSE(call.error.failed());
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_TRUE(conn->usable());
  EXPECT_GT(conn->bytes_acked(), 0u);
  ConnCall again;
  run_coro(ioc, conn_again(*conn, again, "GET / HTTP/1.1\r\nHost: x\r\n\r\n"));
  EXPECT_FALSE(again.read_error) << again.read_error.message();
  EXPECT_EQ(again.reply, test::json_response(200, "OK", "{}"));  // no CRLF left before it
}

TEST(Connection, BytesAckedCountsWhatTheServerReceived) {
  test::FakeServer server([](test::FakeConn& c, const test::FakeRequest&) {
    return c.send(test::json_response(200, "OK", "{}"));
  });
  asio::io_context ioc(1);
  Dialer dialer(ioc, conn_endpoint("http", "127.0.0.1", server.port()));
  auto conn = dialer.open();
  const std::string req = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
  ConnCall call;
  run_coro(ioc, conn_call(*conn, call, req));
  ASSERT_FALSE(call.error.failed());
  EXPECT_GE(conn->bytes_acked(), req.size());      // Linux counts the SYN too
  EXPECT_LE(conn->bytes_acked(), req.size() + 1);
  // The mark a request's write is compared with, counted without asking the kernel: what
  // bytes_acked() reads once the server has received everything written.
  EXPECT_EQ(conn->acked_mark(), conn->bytes_acked());
  ConnCall again;
  run_coro(ioc, conn_again(*conn, again, req));
  ASSERT_FALSE(again.read_error) << again.read_error.message();
  EXPECT_EQ(conn->acked_mark(), conn->bytes_acked());
  EXPECT_LE(conn->bytes_acked(), 2 * req.size() + 1);
}

TEST(Connection, RefusedIsAConnectStepFailure) {
  asio::io_context ioc(1);
  Dialer dialer(ioc, conn_endpoint("http", "127.0.0.1", test::FakeServer::closed_port()));
  auto conn = dialer.open();
  ConnCall call;
  run_coro(ioc, conn_call(*conn, call, "x"));
  EXPECT_EQ(call.error.step, ConnectError::Step::connect);
  EXPECT_TRUE(is_refused(call.error.ec)) << call.error.ec.message();
  EXPECT_FALSE(call.error.tcp_connected());
}

TEST(Connection, TlsIsChosenByTheEndpointAndVerifiesTheCertificate) {
  const std::string response = test::json_response(200, "OK", "{}");
  test::TlsFakeServer server(response);
  asio::io_context ioc(1);
  {
    Endpoint ep = conn_endpoint("https", "localhost", server.port());
    ep.insecure = true;
    Dialer dialer(ioc, ep);
    auto conn = dialer.open();
    EXPECT_TRUE(conn->tls());
    ConnCall call;
    run_coro(ioc, conn_call(*conn, call, "GET / HTTP/1.1\r\nHost: localhost\r\n\r\n"));
    ASSERT_FALSE(call.error.failed()) << call.error.tls_detail;
    EXPECT_EQ(call.reply, response);
  }
  Dialer strict(ioc, conn_endpoint("https", "localhost", server.port()));
  auto conn = strict.open();
  ConnCall call;
  run_coro(ioc, conn_call(*conn, call, "x"));
  EXPECT_EQ(call.error.step, ConnectError::Step::tls);
  EXPECT_TRUE(call.error.tcp_connected());
  EXPECT_NE(call.error.tls_detail.find("certificate verification failed: self-signed certificate"), std::string::npos)
      << call.error.tls_detail;
  EXPECT_EQ(server.handshakes(), 1);  // only the insecure one completed
}

TEST(Connection, ExpiredDeadlineTimesOutARead) {
  test::FakeServer server([](test::FakeConn& c, const test::FakeRequest&) {
    c.sleep_ms(1000);
    return false;
  });
  asio::io_context ioc(1);
  Dialer dialer(ioc, conn_endpoint("http", "127.0.0.1", server.port()));
  auto conn = dialer.open();
  ConnCall call;
  run_coro(ioc, conn_read_after_deadline(*conn, call));
  EXPECT_FALSE(call.error.failed());
  EXPECT_TRUE(is_timeout(call.read_error)) << call.read_error.message();
}

}  // namespace
}  // namespace sb
