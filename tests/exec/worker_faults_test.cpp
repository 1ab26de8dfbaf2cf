// The worker against the faults real servers commit (docs/reliability.md): stale keep-alive
// sockets and when a request may be sent again, interim 1xx responses, an extra CRLF after the last
// chunk, HTTP/1.0 bodies that end at close, Connection: close, and keys echoed in error bodies.
#include <gtest/gtest.h>

#include "exec/worker_rig.hpp"
#include "metrics/failure_cause.hpp"

namespace sb {
namespace {

using test::expect_streamed_ok;
using test::FakeConnScript;
using test::FakeRead;
using test::worker_one_read;
using test::worker_sse_response;
using test::WorkerRig;

TEST(WorkerFaults, ReusedConnectionClosedAfterTheServerGotTheRequestIsNotSentTwice) {
  WorkerRig rig;
  // Every close counts as long after the reply and the write (a 1 ns window): the server kept the
  // connection open, read the second request (its TCP acknowledged it), then closed without a byte.
  rig.opt.reply_close_window_ns = 1;
  const std::string resp = worker_sse_response();
  rig.net.add(FakeConnScript{{worker_one_read(resp), {test::fake_eof()}}, {}, false});
  rig.net.add(FakeConnScript{{worker_one_read(resp)}, {}, false});
  expect_streamed_ok(rig.send());
  const RequestRecord& r = rig.send();
  EXPECT_EQ(r.outcome, Outcome::connect_error);
  EXPECT_EQ(r.retries, 0);
  EXPECT_NE(r.error.find("on a reused keep-alive connection (not retried: the server may have processed it)"),
            std::string::npos) << r.error;
  EXPECT_EQ(classify_failure(r.http_status, r.error), FailureCause::keep_alive_closed);
  EXPECT_EQ(rig.net.made(), 1);
  EXPECT_EQ(rig.net.log.requests.size(), 2u);  // each request reached the server once
}

// llama.cpp: the reply ends, the server closes a moment later; the next request, written on the
// connection meanwhile, is acknowledged by the still-open socket and then met by the close: a FIN
// (shut down first) or a reset (closed with the request unread).
TEST(WorkerFaults, ReusedConnectionClosedOrResetRightAfterItsReplyIsSentAgainOnce) {
  for (const FakeRead& close : {test::fake_eof(), test::fake_reset()}) {
    SCOPED_TRACE(close.error.message());
    WorkerRig rig;
    const std::string resp = worker_sse_response();
    rig.net.add(FakeConnScript{{worker_one_read(resp), {close}}, {}, false});
    rig.net.add(FakeConnScript{{worker_one_read(resp)}, {}, false});
    expect_streamed_ok(rig.send());
    const RequestRecord& r = rig.send();
    expect_streamed_ok(r);
    EXPECT_EQ(r.retries, 1);
    EXPECT_EQ(rig.net.made(), 2);
    EXPECT_EQ(rig.net.log.requests.size(), 3u);
  }
}

// After two such closes the worker stops reusing: each request gets a connection of its own, and
// none races the server's close again.
TEST(WorkerFaults, ServerClosingAfterEveryReplyGetsANewConnectionPerRequest) {
  WorkerRig rig;
  const std::string resp = worker_sse_response();
  for (int i = 0; i < 5; ++i) rig.net.add(FakeConnScript{{worker_one_read(resp), {test::fake_eof()}}, {}, false});
  expect_streamed_ok(rig.send());
  EXPECT_EQ(rig.send().retries, 1);  // the first close: resent on the second connection
  EXPECT_EQ(rig.send().retries, 1);  // the second: resent on the third, and the pool has seen enough
  for (int i = 0; i < 2; ++i) {
    const RequestRecord& r = rig.send();
    expect_streamed_ok(r);
    EXPECT_EQ(r.retries, 0);
  }
  EXPECT_EQ(rig.net.made(), 5);
  EXPECT_EQ(rig.net.log.requests.size(), 7u);  // five requests, two of them twice: never three times
  EXPECT_EQ(rig.worker->idle_connections(), 0);
}

TEST(WorkerFaults, RetryTakesAFreshConnectionNotAnotherIdleOne) {
  WorkerRig rig;
  const std::string resp = worker_sse_response();
  for (int i = 0; i < 2; ++i) {  // two kept-alive connections, both closed by the server meanwhile
    FakeConnScript stale{{worker_one_read(resp), {test::fake_eof()}}, {}, false};
    stale.acked_requests = 1;
    // The two first requests overlap, so each gets its own connection: neither answers before both
    // are open, even when the worker thread finishes the first before the second is submitted.
    stale.hold_reads_until_connects = 2;
    rig.net.add(stale);
  }
  rig.net.add(FakeConnScript{{worker_one_read(resp)}, {}, false});
  rig.send_together(2);
  ASSERT_EQ(rig.net.made(), 2);
  ASSERT_EQ(rig.worker->idle_connections(), 2);
  const RequestRecord& r = rig.send();
  expect_streamed_ok(r);
  EXPECT_EQ(r.retries, 1);
  EXPECT_EQ(rig.net.made(), 3);                // the retry opened a new one
  EXPECT_EQ(rig.net.log.requests.size(), 4u);  // the other stale one was never written to
  EXPECT_EQ(rig.worker->idle_connections(), 2);
}

TEST(WorkerFaults, WriteFailureOnAReusedConnectionIsRetriedOnAFreshOne) {
  WorkerRig rig;
  const std::string resp = worker_sse_response();
  FakeConnScript broken{{worker_one_read(resp)}, {}, false};
  broken.fail_writes_from = 1;
  rig.net.add(broken);
  rig.net.add(FakeConnScript{{worker_one_read(resp)}, {}, false});
  expect_streamed_ok(rig.send());
  const RequestRecord& r = rig.send();
  expect_streamed_ok(r);
  EXPECT_EQ(r.retries, 1);
  EXPECT_EQ(rig.net.made(), 2);
}

TEST(WorkerFaults, RetryIsNeverRetriedAgain) {
  WorkerRig rig;
  const std::string resp = worker_sse_response();
  FakeConnScript stale{{worker_one_read(resp), {test::fake_eof()}}, {}, false};
  stale.acked_requests = 1;
  rig.net.add(stale);
  FakeConnScript closed{{{test::fake_eof()}}, {}, false};  // the fresh one is closed before the request too
  closed.acked_requests = 0;
  rig.net.add(closed);
  expect_streamed_ok(rig.send());
  const RequestRecord& r = rig.send();
  EXPECT_EQ(r.outcome, Outcome::connect_error);
  EXPECT_EQ(r.error, "connection closed before any response byte");
  EXPECT_EQ(r.retries, 1);
  EXPECT_EQ(rig.net.made(), 2);
}

std::string faults_interim() {
  return "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </s.css>; rel=preload\r\n\r\n";
}

TEST(WorkerFaults, InterimResponsesBeforeTheStatusAreSkippedAtEveryByteSplit) {
  WorkerRig rig;
  const std::string resp = faults_interim() + worker_sse_response();
  rig.net.add(FakeConnScript{{worker_one_read(resp), test::fake_reads(resp, 1)}, {}, false});
  expect_streamed_ok(rig.send());
  expect_streamed_ok(rig.send());
  EXPECT_EQ(rig.net.made(), 1);
  EXPECT_EQ(rig.worker->idle_connections(), 1);
}

TEST(WorkerFaults, InterimResponseBeforeAnErrorStatusKeepsTheErrorStatus) {
  WorkerRig rig;
  const std::string resp = faults_interim() + test::json_response(429, "Too Many Requests", R"({"error":"slow down"})");
  rig.net.add(FakeConnScript{{worker_one_read(resp)}, {}, false});
  const RequestRecord& r = rig.send();
  EXPECT_EQ(r.outcome, Outcome::http_error);
  EXPECT_EQ(r.http_status, 429);
  EXPECT_EQ(r.error, "HTTP 429 Too Many Requests: slow down");
}

TEST(WorkerFaults, ExtraCrlfAfterTheLastChunkDoesNotFailTheNextRequest) {
  WorkerRig rig;
  const std::string resp = worker_sse_response();
  FakeConnScript conn;
  conn.responses.push_back(worker_one_read(resp + "\r\n"));   // in the same read: dropped
  conn.responses.push_back(worker_one_read("\r\n" + resp));   // late: before the next status line
  conn.responses.push_back(test::fake_reads("\r\n\r\n" + resp, 1));
  rig.net.add(conn);
  for (int i = 0; i < 3; ++i) expect_streamed_ok(rig.send());
  EXPECT_EQ(rig.net.made(), 1);
  EXPECT_EQ(rig.records.back().first_byte_ns >= 0, true);
}

TEST(WorkerFaults, Http10StreamWithoutLengthEndsAtCloseAndIsNotKept) {
  WorkerRig rig;
  const std::string events = test::token_event("a") + test::token_event("b") + test::token_event("c", true) +
                             "data: [DONE]\n\n";
  const std::string resp = "HTTP/1.0 200 OK\r\nContent-Type: text/event-stream\r\n\r\n" + events;
  for (std::size_t step : {resp.size(), std::size_t{1}}) {
    std::vector<FakeRead> reads = test::fake_reads(resp, step);
    reads.push_back(test::fake_eof());
    rig.net.add(FakeConnScript{{reads}, {}, false});
    const RequestRecord& r = rig.send();
    EXPECT_EQ(r.outcome, Outcome::ok) << r.error;
    EXPECT_EQ(r.token_ns.size(), 3u);
    EXPECT_EQ(rig.worker->idle_connections(), 0);
  }
  EXPECT_EQ(rig.net.made(), 2);
}

TEST(WorkerFaults, ConnectionCloseReplyIsNotReused) {
  WorkerRig rig;
  std::string resp = worker_sse_response();
  resp.insert(resp.find("\r\n") + 2, "Connection: close\r\n");
  rig.net.add(FakeConnScript{{worker_one_read(resp)}, {}, false});
  rig.net.add(FakeConnScript{{worker_one_read(resp)}, {}, false});
  expect_streamed_ok(rig.send());
  expect_streamed_ok(rig.send());
  EXPECT_EQ(rig.net.made(), 2);
  EXPECT_EQ(rig.records.back().retries, 0);
}

TEST(WorkerFaults, KeyEchoedInAnErrorBodyIsScrubbed) {
  WorkerRig rig;
  rig.opt.headers = {{"Authorization", "Bearer sk-planted-0123456789abcdef"}};
  const std::string body = R"({"error":{"message":"Incorrect API key provided: sk-planted-0123456789abcdef. )"
                           R"(You can find your API key at https://example.test.","type":"invalid_request_error"}})";
  rig.net.add(FakeConnScript{{worker_one_read(test::json_response(401, "Unauthorized", body))}, {}, false});
  const RequestRecord& r = rig.send();
  EXPECT_EQ(r.outcome, Outcome::http_error);
  EXPECT_EQ(r.error.find("sk-planted"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("Incorrect API key provided: sk-***"), std::string::npos) << r.error;
}

}  // namespace
}  // namespace sb
