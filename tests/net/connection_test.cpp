// net::Connection on loopback: plain and TLS decided by the endpoint, each connect failure at its
// step, reads and writes, deadlines, and usable() noticing a server that closed an idle connection.
#include "net/connection.hpp"

#include <gtest/gtest.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <thread>

#include "core/clock.hpp"
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

// Kernel arrival times (Dialer::use_kernel_arrival_times): the bytes a late read finds are
// stamped when they reached the machine, not when the read ran.
struct LateRead {
  ConnectError error;
  boost::system::error_code read_error;
  std::string reply;
  std::int64_t read_at_ns = 0, arrival_at_ns = 0;
};

asio::awaitable<void> conn_read_late(Connection& conn, LateRead& out, int late_ms) {
  co_await conn.connect(in_seconds(5), out.error);
  if (out.error.failed()) co_return;
  boost::system::error_code ec;
  const std::string req = "GET / HTTP/1.1\r\n\r\n";
  co_await conn.write(asio::buffer(req), asio::const_buffer(), ec);
  std::this_thread::sleep_for(std::chrono::milliseconds(late_ms));  // the client thread is busy elsewhere
  conn.expires_at(in_seconds(5));
  char buf[256];
  const std::size_t n = co_await conn.read_some(asio::buffer(buf), ec);
  out.read_at_ns = now_ns();
  out.arrival_at_ns = conn.arrival_ns(out.read_at_ns);
  out.reply.assign(buf, n);
  out.read_error = ec;
}

std::int64_t steady_ns(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
}

TEST(Connection, KernelArrivalTimeIsWhenTheBytesCameNotWhenTheyWereRead) {
  for (const bool kernel : {true, false}) {
    std::atomic<std::int64_t> sent_at{0};
    test::FakeServer server([&](test::FakeConn& c, const test::FakeRequest&) {
      c.send("data: x\n\n");
      sent_at = steady_ns(c.last_send_start);
      c.sleep_ms(500);
      return false;
    });
    asio::io_context ioc(1);
    Dialer dialer(ioc, conn_endpoint("http", "127.0.0.1", server.port()));
    dialer.use_kernel_arrival_times(kernel);
    auto conn = dialer.open();
    LateRead late;
    run_coro(ioc, conn_read_late(*conn, late, 120));
    ASSERT_FALSE(late.error.failed()) << late.error.ec.message();
    ASSERT_FALSE(late.read_error) << late.read_error.message();
    EXPECT_EQ(late.reply, "data: x\n\n");
    EXPECT_EQ(conn->kernel_arrival_times(), kernel);
    ASSERT_GT(sent_at.load(), 0);
    // The server sent right after it read the request, well before the read 120 ms later.
    EXPECT_GE(late.read_at_ns - sent_at, 100'000'000);
    if (kernel) {
      EXPECT_GE(late.arrival_at_ns, sent_at.load());
      EXPECT_LT(late.arrival_at_ns - sent_at, 60'000'000) << "stamped when read, not when it came";
    } else {
      EXPECT_EQ(late.arrival_at_ns, late.read_at_ns);
    }
  }
}

// Two reads with kernel arrival times: the first with `first_s` to its deadline, the second with
// `second_s`. The server answers the first at once and the second after `second_after_ms`.
struct TwoReads {
  ConnectError error;
  boost::system::error_code first, second;
  double second_took_s = 0;
};

asio::awaitable<void> conn_two_reads(Connection& conn, TwoReads& out, double first_s, double second_s) {
  co_await conn.connect(in_seconds(5), out.error);
  if (out.error.failed()) co_return;
  boost::system::error_code ec;
  const std::string req = "GET / HTTP/1.1\r\n\r\n";
  co_await conn.write(asio::buffer(req), asio::const_buffer(), ec);
  char buf[64];
  conn.expires_at(in_seconds(first_s));
  co_await conn.read_some(asio::buffer(buf), ec);
  out.first = ec;
  const auto start = std::chrono::steady_clock::now();
  conn.expires_at(in_seconds(second_s));
  co_await conn.read_some(asio::buffer(buf), ec);
  out.second = ec;
  out.second_took_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

TEST(Connection, KernelArrivalReadsKeepTheirDeadlinesWhenTheyMove) {
  // Later: the first read's timer (armed at 50 ms while it waited) fires during the second read,
  // whose deadline is 1.5 s away; the second read must still get its bytes at ~150 ms.
  // Earlier: the second read's deadline (60 ms) is before the first's (5 s) and must hold.
  for (const bool later : {true, false}) {
    test::FakeServer server([&](test::FakeConn& c, const test::FakeRequest&) {
      c.sleep_ms(10);
      c.send("a");
      if (later) {
        c.sleep_ms(150);
        c.send("b");
      }
      c.sleep_ms(2000);
      return false;
    });
    asio::io_context ioc(1);
    Dialer dialer(ioc, conn_endpoint("http", "127.0.0.1", server.port()));
    dialer.use_kernel_arrival_times(true);
    auto conn = dialer.open();
    TwoReads r;
    run_coro(ioc, conn_two_reads(*conn, r, later ? 0.05 : 5, later ? 1.5 : 0.06));
    ASSERT_FALSE(r.error.failed()) << r.error.ec.message();
    ASSERT_TRUE(conn->kernel_arrival_times());
    EXPECT_FALSE(r.first) << r.first.message();
    if (later) {
      EXPECT_FALSE(r.second) << "the moved deadline was not honoured: " << r.second.message();
      EXPECT_LT(r.second_took_s, 1.0);
    } else {
      EXPECT_TRUE(is_timeout(r.second)) << r.second.message();
      EXPECT_LT(r.second_took_s, 1.0) << "the earlier deadline waited for the first read's";
    }
  }
}

TEST(Connection, KernelArrivalReadTimesOutAtItsDeadline) {
  test::FakeServer server([](test::FakeConn& c, const test::FakeRequest&) {
    c.sleep_ms(1000);
    return false;
  });
  asio::io_context ioc(1);
  Dialer dialer(ioc, conn_endpoint("http", "127.0.0.1", server.port()));
  dialer.use_kernel_arrival_times(true);
  auto conn = dialer.open();
  ConnCall call;
  run_coro(ioc, conn_read_after_deadline(*conn, call));
  EXPECT_FALSE(call.error.failed());
  EXPECT_TRUE(conn->kernel_arrival_times());
  EXPECT_TRUE(is_timeout(call.read_error)) << call.read_error.message();
}

}  // namespace
}  // namespace sb
