// The worker's pool and HTTP exchange on in-memory connections (exec/fake_stream.hpp): known
// answers for streams split anywhere, resets and closes at any point, keep-alive reuse and HTTP
// errors, with every token stamped by the read that completed it.
#include "exec/worker.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>

#include "exec/exchange.hpp"
#include "exec/fake_stream.hpp"
#include "exec/runner.hpp"
#include "exec/worker_rig.hpp"
#include "net/fake_server.hpp"

namespace sb {
namespace {

using test::FakeConnScript;
using test::FakeRead;
using test::expect_streamed_ok;
using test::worker_event_ends;
using test::worker_one_read;
using test::worker_sse_response;
using test::WorkerRig;

// Token k must carry the time of the read that delivered byte ends[k]: no earlier than that read
// returned and no later than the next read returned (reads[i] is the i-th read that gave bytes).
void expect_stamped_by_reads(const RequestRecord& r, Nanos t0, const std::vector<Nanos>& reads,
                             const std::vector<std::size_t>& read_of_token) {
  ASSERT_EQ(r.token_ns.size(), read_of_token.size());
  for (std::size_t k = 0; k < read_of_token.size(); ++k) {
    const std::size_t i = read_of_token[k];
    ASSERT_LT(i, reads.size());
    EXPECT_GE(t0 + r.token_ns[k], reads[i]) << "token " << k << " stamped before read " << i << " returned";
    if (i + 1 < reads.size()) {
      EXPECT_LE(t0 + r.token_ns[k], reads[i + 1]) << "token " << k << " stamped after read " << i + 1;
    }
  }
}

TEST(Worker, SseStreamOneEventPerReadIsStampedPerRead) {
  WorkerRig rig;
  const std::string resp = worker_sse_response();
  // Read 0: the head; reads 1-3: one token chunk each; read 4: usage, [DONE] and the last chunk.
  const std::size_t head = std::string(test::kSseHead).size();
  const auto ends = worker_event_ends(resp);
  std::vector<FakeRead> reads{{resp.substr(0, head), {}}};
  std::size_t from = head;
  for (std::size_t end : ends) {
    reads.push_back({resp.substr(from, end + 3 - from), {}});  // up to the chunk's CRLF
    from = end + 3;
  }
  reads.push_back({resp.substr(from), {}});
  rig.net.add(FakeConnScript{{reads}, {}, false});
  const RequestRecord& r = rig.send();
  expect_streamed_ok(r);
  expect_stamped_by_reads(r, rig.t0, rig.net.log.read_returned_ns, {1, 2, 3});
  EXPECT_GE(rig.t0 + r.first_byte_ns, rig.net.log.read_returned_ns[0]);
  EXPECT_LE(rig.t0 + r.first_byte_ns, rig.net.log.read_returned_ns[1]);
  EXPECT_LT(r.token_ns[0], r.token_ns[1]);
  EXPECT_LE(r.sent_ns, r.first_byte_ns);
  EXPECT_GE(r.done_ns, r.token_ns.back());
  ASSERT_EQ(rig.net.log.requests.size(), 1u);
  const std::string& req = rig.net.log.requests[0];
  EXPECT_EQ(req.rfind("POST /v1/completions HTTP/1.1\r\nHost: fake.test:8000\r\n", 0), 0u) << req;
  EXPECT_NE(req.find("\r\nx-request-id: req-1\r\n"), std::string::npos) << req;
  EXPECT_NE(req.find("\r\nContent-Length: 14\r\n\r\n{\"prompt\":\"x\"}"), std::string::npos) << req;
  EXPECT_EQ(rig.worker->idle_connections(), 1);  // kept alive
}

TEST(Worker, StreamSplitAtEveryByteGivesTheSameRecordStampedByTheCompletingByte) {
  WorkerRig rig;
  const std::string resp = worker_sse_response();
  rig.net.add(FakeConnScript{{test::fake_reads(resp, 1)}, {}, false});
  const RequestRecord& r = rig.send();
  expect_streamed_ok(r);
  ASSERT_EQ(rig.net.log.read_returned_ns.size(), resp.size());  // one read per byte
  expect_stamped_by_reads(r, rig.t0, rig.net.log.read_returned_ns, worker_event_ends(resp));
}

TEST(Worker, EveryTwoPieceSplitOfTheStreamGivesTheSameRecord) {
  WorkerRig rig;
  const std::string resp = worker_sse_response();
  FakeConnScript conn;
  for (std::size_t cut = 1; cut < resp.size(); ++cut) {
    conn.responses.push_back({{resp.substr(0, cut), {}}, {resp.substr(cut), {}}});
  }
  rig.net.add(conn);
  for (std::size_t cut = 1; cut < resp.size(); ++cut) {
    const RequestRecord& r = rig.send();
    SCOPED_TRACE("split at byte " + std::to_string(cut));
    expect_streamed_ok(r);
  }
  EXPECT_EQ(rig.net.made(), 1);  // all of them on one kept-alive connection
}

TEST(Worker, ConnectionResetMidStreamIsDroppedWithTheTokensSoFar) {
  WorkerRig rig;
  const std::string resp = worker_sse_response();
  const std::size_t cut = worker_event_ends(resp)[1] + 3;  // after the second token chunk
  rig.net.add(FakeConnScript{{{{resp.substr(0, cut), {}}, test::fake_reset()}}, {}, false});
  const RequestRecord& r = rig.send();
  EXPECT_EQ(r.outcome, Outcome::dropped);
  EXPECT_EQ(r.token_ns.size(), 2u);
  EXPECT_EQ(r.output_tokens, 2);
  EXPECT_EQ(r.token_source, TokenSource::event_count);
  EXPECT_NE(r.error.find("mid-response after 2 token events"), std::string::npos) << r.error;
  EXPECT_EQ(rig.worker->idle_connections(), 0);
  EXPECT_EQ(rig.net.log.closes, 1);
  EXPECT_EQ(rig.net.made(), 1);  // never retried: the server had started answering
}

TEST(Worker, CloseAtEveryPointOfTheStreamIsDroppedWithTheTokensBeforeIt) {
  WorkerRig rig;
  const std::string resp = worker_sse_response();
  const auto ends = worker_event_ends(resp);
  for (std::size_t cut = 1; cut < resp.size(); ++cut) {
    rig.net.add(FakeConnScript{{{{resp.substr(0, cut), {}}, test::fake_eof()}}, {}, false});
    const RequestRecord& r = rig.send();
    SCOPED_TRACE("closed after byte " + std::to_string(cut));
    const auto complete = static_cast<std::size_t>(std::count_if(ends.begin(), ends.end(), [&](std::size_t e) { return e < cut; }));
    EXPECT_EQ(r.outcome, Outcome::dropped) << r.error;
    EXPECT_EQ(r.token_ns.size(), complete);
    EXPECT_EQ(r.error, "connection closed mid-response after " + std::to_string(complete) + " token events");
  }
  EXPECT_EQ(rig.net.made(), static_cast<int>(resp.size()) - 1);  // each on its own connection
}

TEST(Worker, ServerCloseBeforeTheResponseOnAFreshConnectionFails) {
  WorkerRig rig;
  FakeConnScript closed{{{test::fake_eof()}}, {}, false};
  closed.acked_requests = 0;  // closed before the request arrived
  rig.net.add(closed);
  const RequestRecord& r = rig.send();
  EXPECT_EQ(r.outcome, Outcome::connect_error);
  EXPECT_EQ(r.error, "connection closed before any response byte");
  EXPECT_EQ(r.first_byte_ns, -1);
  EXPECT_EQ(rig.net.made(), 1);  // a fresh connection is not retried
}

TEST(Worker, ServerCloseBeforeTheResponseOnAReusedConnectionIsRetriedOnce) {
  WorkerRig rig;
  const std::string resp = worker_sse_response();
  // The first connection answers once, then the server has closed it (the peek does not see it).
  FakeConnScript stale{{worker_one_read(resp), {test::fake_eof()}}, {}, false};
  stale.acked_requests = 1;  // the second request met the closed socket: never acknowledged
  rig.net.add(stale);
  rig.net.add(FakeConnScript{{worker_one_read(resp)}, {}, false});
  expect_streamed_ok(rig.send());
  EXPECT_EQ(rig.records.back().retries, 0);
  expect_streamed_ok(rig.send());
  EXPECT_EQ(rig.records.back().retries, 1);
  EXPECT_EQ(rig.net.made(), 2);
  EXPECT_EQ(rig.net.log.requests.size(), 3u);  // the second request was written twice
  EXPECT_EQ(rig.worker->connections_opened(), 2);
}

// A connection the server kept across a reused request is sent on again, within the trusted idle
// time, without a look at its socket. When the server closed it meanwhile, the request met the
// closed socket unacknowledged: it goes again on a new connection, counted as a retry, not failed.
TEST(Worker, TrustedConnectionClosedByTheServerIsRetriedWithoutALook) {
  WorkerRig rig;
  rig.opt.trusted_idle_ns = 3'600'000'000'000;  // an hour: no machine is slow enough to miss it
  const std::string resp = worker_sse_response();
  FakeConnScript first{{worker_one_read(resp), worker_one_read(resp), {test::fake_eof()}}, {}, false};
  first.closed_after = 2;
  first.acked_requests = 2;
  rig.net.add(first);
  rig.net.add(FakeConnScript{{worker_one_read(resp)}, {}, false});
  expect_streamed_ok(rig.send());
  expect_streamed_ok(rig.send());  // reused: looked at once (not proven yet), then kept: proven
  EXPECT_EQ(rig.net.log.looks, 1);
  expect_streamed_ok(rig.send());
  EXPECT_EQ(rig.net.log.looks, 1);  // trusted: no look, so the close was not seen before the write
  EXPECT_EQ(rig.records.back().retries, 1);
  EXPECT_EQ(rig.net.made(), 2);
  EXPECT_EQ(rig.net.log.requests.size(), 4u);
}

TEST(Worker, UnprovenOrLongIdleConnectionsAreLookedAtBeforeReuse) {
  WorkerRig rig;
  rig.opt.trusted_idle_ns = 0;  // never trusted: every reuse looks, and sees the close
  const std::string resp = worker_sse_response();
  FakeConnScript first{{worker_one_read(resp), worker_one_read(resp), worker_one_read(resp)}, {}, false};
  first.closed_after = 2;
  rig.net.add(first);
  rig.net.add(FakeConnScript{{worker_one_read(resp)}, {}, false});
  for (int i = 0; i < 3; ++i) expect_streamed_ok(rig.send());
  EXPECT_EQ(rig.net.log.looks, 2);
  EXPECT_EQ(rig.records.back().retries, 0);  // the look found the close: a new connection at once
  EXPECT_EQ(rig.net.made(), 2);
  EXPECT_EQ(rig.net.log.requests.size(), 3u);
}

TEST(Worker, KeepAliveReusesOneConnectionForEveryRequest) {
  WorkerRig rig;
  const std::string resp = worker_sse_response();
  rig.net.add(FakeConnScript{std::vector<std::vector<FakeRead>>(6, worker_one_read(resp)), {}, false});
  for (int i = 0; i < 6; ++i) expect_streamed_ok(rig.send());
  EXPECT_EQ(rig.net.made(), 1);
  EXPECT_EQ(rig.net.log.connects, 1);
  EXPECT_EQ(rig.worker->connections_opened(), 1);
  EXPECT_EQ(rig.net.log.requests.size(), 6u);
  EXPECT_EQ(rig.worker->idle_connections(), 1);
  EXPECT_EQ(rig.net.log.closes, 0);
}

// A request handed over ahead of its due time and stopped before it went is not sent: no byte of it
// reaches the server, and its record says so (the run counts it neither sent nor failed).
TEST(Worker, RequestStoppedBeforeItsDueTimeIsNotSent) {
  WorkerRig rig;
  rig.net.add(FakeConnScript{{worker_one_read(worker_sse_response())}, {}, false});
  rig.start();
  RequestRecord& rec = rig.records.emplace_back();
  rec.expected_output_tokens = 3;
  const Nanos t0 = now_ns();
  rig.worker->submit(Job{&rec, &rig.body, "", 0, t0, t0 + 300'000'000});  // due in 300 ms
  rig.worker->cancel_all();
  {
    std::unique_lock<std::mutex> lk(rig.mu);
    ASSERT_TRUE(rig.cv.wait_for(lk, std::chrono::seconds(10), [&] { return rig.completed == 1; }));
  }
  EXPECT_EQ(rec.outcome, Outcome::cancelled);
  EXPECT_FALSE(rec.was_sent);
  EXPECT_GE(rec.sent_ns, 300'000'000);  // it waited for its due time, then did not go
  EXPECT_TRUE(rig.net.log.requests.empty());
  EXPECT_EQ(rig.net.log.connects, 0);
}

// Token times get room for max_tokens up front (no allocation per event); a stream that ends far
// short of it gives the room back, or a 32,000-token max_tokens would keep 128 KB a request for the
// whole stage (issue 13: memory per request).
TEST(Worker, TokenRoomForMaxTokensIsGivenBackWhenTheStreamEndsFarShort) {
  WorkerRig rig;
  const std::string resp = worker_sse_response();
  rig.net.add(FakeConnScript{std::vector<std::vector<FakeRead>>(2, worker_one_read(resp)), {}, false});
  const RequestRecord& close = rig.send();  // max_tokens 3: the room fits the stream
  expect_streamed_ok(close);
  EXPECT_GE(close.token_ns.heap_bytes(), close.token_ns.size() * sizeof(std::uint32_t));
  EXPECT_LE(close.token_ns.heap_bytes(), (3 + 2) * sizeof(std::uint32_t));
  rig.max_tokens = 32000;
  const RequestRecord& far = rig.send();
  expect_streamed_ok(far);
  EXPECT_EQ(far.token_ns.size(), close.token_ns.size());
  EXPECT_LT(far.token_ns.heap_bytes(), 64u);
}

// A request of a cycled stage (the dataset reused) carries "<id>-c<cycle>", written by the worker.
TEST(Worker, CycledRequestIdIsWrittenWithItsCycle) {
  WorkerRig rig;
  rig.request_cycle = 12;
  rig.net.add(FakeConnScript{{worker_one_read(worker_sse_response())}, {}, false});
  expect_streamed_ok(rig.send());
  ASSERT_EQ(rig.net.log.requests.size(), 1u);
  EXPECT_NE(rig.net.log.requests[0].find("\r\nx-request-id: req-1-c12\r\n"), std::string::npos) << rig.net.log.requests[0];
}

TEST(Worker, StaleIdleConnectionIsDroppedBeforeSendingOnIt) {
  WorkerRig rig;
  const std::string resp = worker_sse_response();
  for (int i = 0; i < 3; ++i) rig.net.add(FakeConnScript{{worker_one_read(resp)}, {}, true});
  for (int i = 0; i < 3; ++i) expect_streamed_ok(rig.send());
  EXPECT_EQ(rig.net.made(), 3);
  EXPECT_EQ(rig.net.log.requests.size(), 3u);  // nothing written to a stale connection
  // Two connections closed right after their replies: the server closes after every reply, so the
  // third waits for its close instead of going idle (exec/conn_pool.hpp), and is closed here once
  // the server has closed it (at once, in this fake).
  EXPECT_EQ(rig.net.log.closes, 3);
  EXPECT_EQ(rig.worker->idle_connections(), 0);
}

TEST(Worker, HttpErrorStatusKeepsTheServersMessage) {
  WorkerRig rig;
  const std::string resp =
      test::json_response(503, "Service Unavailable", R"({"error":{"message":"queue full"}})");
  rig.net.add(FakeConnScript{{test::fake_reads(resp, 7)}, {}, false});
  const RequestRecord& r = rig.send();
  EXPECT_EQ(r.outcome, Outcome::http_error);
  EXPECT_EQ(r.http_status, 503);
  EXPECT_EQ(r.error, "HTTP 503 Service Unavailable: queue full");
  EXPECT_TRUE(r.token_ns.empty());
  EXPECT_EQ(rig.worker->idle_connections(), 0);  // closed after an error answer
}

TEST(Worker, BadChunkFramingIsMalformed) {
  WorkerRig rig;
  rig.net.add(FakeConnScript{{worker_one_read(std::string(test::kSseHead) + "zz\r\nnot a chunk")}, {}, false});
  const RequestRecord& r = rig.send();
  EXPECT_EQ(r.outcome, Outcome::malformed);
  EXPECT_EQ(r.error.rfind("bad HTTP response: ", 0), 0u) << r.error;
}

TEST(Worker, ReadTimeoutIsAnIdleTimeout) {
  WorkerRig rig;
  const std::string resp = worker_sse_response();
  rig.net.add(FakeConnScript{{{{resp.substr(0, 100), {}}, test::fake_timeout()}}, {}, false});
  const RequestRecord& r = rig.send();
  EXPECT_EQ(r.outcome, Outcome::timeout);
  EXPECT_NE(r.error.find("no data for idle_timeout_s="), std::string::npos) << r.error;
}

TEST(Worker, ConnectFailuresAreWordedForTheLoadClient) {
  WorkerRig rig;
  FakeConnScript refused;
  refused.connect_error.step = ConnectError::Step::connect;
  refused.connect_error.ec = boost::asio::error::connection_refused;
  FakeConnScript tls;
  tls.connect_error.step = ConnectError::Step::tls;
  tls.connect_error.tls_detail = "certificate verification failed: self-signed certificate";
  FakeConnScript slow;
  slow.connect_error.step = ConnectError::Step::connect;
  slow.connect_error.ec = timeout_error();
  rig.net.add(refused);
  rig.net.add(tls);
  rig.net.add(slow);
  const RequestRecord& a = rig.send();
  EXPECT_EQ(a.outcome, Outcome::connect_error);
  EXPECT_EQ(a.error.rfind("connect to fake.test:8000 failed: ", 0), 0u) << a.error;
  const RequestRecord& b = rig.send();
  EXPECT_EQ(b.outcome, Outcome::connect_error);
  EXPECT_EQ(b.error, "TLS handshake with fake.test:8000 failed: certificate verification failed: self-signed certificate");
  EXPECT_EQ(rig.send().outcome, Outcome::timeout);
  EXPECT_EQ(rig.worker->connections_opened(), 1);  // only the TLS one got as far as TCP
}

TEST(ReadBuffer, KeepsUnparsedBytesAcrossPrepareAndCompacts) {
  ReadBuffer buf;
  auto room = buf.prepare(8);
  std::memcpy(room.data(), "abcdefgh", 8);
  buf.commit(8);
  buf.consume(5);
  EXPECT_EQ(std::string(static_cast<const char*>(buf.data().data()), buf.size()), "fgh");
  room = buf.prepare(6);  // 3 unparsed + 6 more than fits at the end: moved to the front
  std::memcpy(room.data(), "123456", 6);
  buf.commit(6);
  EXPECT_EQ(std::string(static_cast<const char*>(buf.data().data()), buf.size()), "fgh123456");
  buf.consume(100);
  EXPECT_EQ(buf.size(), 0u);
}

}  // namespace
}  // namespace sb
