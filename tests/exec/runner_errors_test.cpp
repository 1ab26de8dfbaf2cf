// Runner failure paths against canned servers: every Outcome category, retries, request_stop.
#include <gtest/gtest.h>

#include <thread>

#include "exec/runner.hpp"
#include "net/fake_server.hpp"
#include "net/tls_fake_server.hpp"

namespace sb {
namespace {

using test::FakeConn;
using test::FakeRequest;
using test::FakeServer;

ClientOptions errors_options(std::uint16_t port) {
  ClientOptions opt;
  opt.endpoint = parse_base_url("http://127.0.0.1:" + std::to_string(port));
  opt.threads = 2;
  opt.idle_timeout_s = 0.3;
  return opt;
}

// The request body names the behaviour the canned server shows.
bool misbehave(FakeConn& c, const FakeRequest& r) {
  const std::string& kind = r.body;
  const std::string tok = test::http_chunk(test::token_event("t"));
  if (kind == "http500") {
    return c.send(test::json_response(500, "Internal Server Error", R"({"error":{"message":"boom"}})"));
  }
  if (kind == "drop") {
    c.send(std::string(test::kSseHead) + tok + tok);
    return false;  // close mid-stream
  }
  if (kind == "malformed") {
    c.send(std::string(test::kSseHead) + tok + test::http_chunk("data: {\"choices\":[nope\n\n"));
    c.sleep_ms(1000);  // the client must close on its own, not wait for the server
    return false;
  }
  if (kind == "nodone") return c.send(std::string(test::kSseHead) + tok + tok + test::kLastChunk);
  if (kind == "empty") {
    return c.send(std::string(test::kSseHead) + test::http_chunk("data: [DONE]\n\n") + test::kLastChunk);
  }
  if (kind == "stall") {
    c.send(std::string(test::kSseHead) + tok);
    c.sleep_ms(3000);
    return false;
  }
  if (kind == "plain") {
    return c.send(test::json_response(
        200, "OK", R"({"choices":[{"text":"hi","finish_reason":"length"}],"usage":{"prompt_tokens":2,"completion_tokens":4}})"));
  }
  return c.send(std::string(test::kSseHead) + test::http_chunk(test::token_event("t", true)) +
                test::http_chunk("data: [DONE]\n\n") + test::kLastChunk);
}

struct ErrorStage {
  std::vector<std::string> bodies;
  StageInput in;
  explicit ErrorStage(std::vector<std::string> b) : bodies(std::move(b)) {
    in.bodies = &bodies;
    in.requests.resize(bodies.size());
  }
};

TEST(RunnerErrors, EveryFailureLandsInItsCategory) {
  FakeServer server(misbehave);
  Runner runner(errors_options(server.port()));
  ErrorStage s({"http500", "drop", "malformed", "nodone", "empty", "stall", "plain", "ok"});
  std::vector<std::uint32_t> streamed;
  const StageOutput out = runner.run_stage(s.in, [&](const RequestRecord& r) { streamed.push_back(r.index); }, {});
  const auto& r = out.records;
  EXPECT_EQ(r[0].outcome, Outcome::http_error);
  EXPECT_EQ(r[0].http_status, 500);
  EXPECT_EQ(r[0].error, "HTTP 500 Internal Server Error: boom");
  EXPECT_EQ(r[1].outcome, Outcome::dropped) << r[1].error;
  EXPECT_EQ(r[1].token_ns.size(), 2u);
  EXPECT_EQ(r[2].outcome, Outcome::malformed) << r[2].error;
  EXPECT_LT(r[2].done_ns - r[2].sent_ns, 500'000'000);
  EXPECT_EQ(r[3].outcome, Outcome::dropped) << r[3].error;
  EXPECT_EQ(r[4].outcome, Outcome::no_tokens) << r[4].error;
  EXPECT_EQ(r[5].outcome, Outcome::timeout) << r[5].error;
  EXPECT_NE(r[5].error.find("idle_timeout_s"), std::string::npos);
  EXPECT_EQ(r[6].outcome, Outcome::ok) << r[6].error;
  EXPECT_EQ(r[6].token_source, TokenSource::usage_body);
  EXPECT_EQ(r[7].outcome, Outcome::ok) << r[7].error;
  EXPECT_EQ(streamed.size(), 8u);  // every record reached the callback once
  for (const auto& rec : r) EXPECT_FALSE(rec.aborted);
}

TEST(RunnerErrors, WholeRequestTimeout) {
  FakeServer server([](FakeConn& c, const FakeRequest&) {
    for (int i = 0; i < 40; ++i) {  // keeps talking, so only the whole-request limit can fire
      if (!c.send(i == 0 ? std::string(test::kSseHead) : test::http_chunk(test::token_event("t")))) break;
      c.sleep_ms(20);
    }
    return false;
  });
  ClientOptions opt = errors_options(server.port());
  opt.timeout_s = 0.25;
  Runner runner(opt);
  ErrorStage s({"{}"});
  const RequestRecord r = runner.run_stage(s.in, {}, {}).records[0];
  EXPECT_EQ(r.outcome, Outcome::timeout);
  EXPECT_NE(r.error.find("timeout_s"), std::string::npos) << r.error;
}

TEST(RunnerErrors, ConnectionRefusedIsAConnectError) {
  const std::uint16_t port = FakeServer::closed_port();
  Runner runner(errors_options(port));
  ErrorStage s({"{}", "{}"});
  for (const auto& r : runner.run_stage(s.in, {}, {}).records) {
    EXPECT_EQ(r.outcome, Outcome::connect_error);
    EXPECT_NE(r.error.find("127.0.0.1:" + std::to_string(port)), std::string::npos) << r.error;
  }
}

TEST(RunnerErrors, StaleKeptAliveConnectionIsRetriedSilently) {
  // Answers each request, then closes without saying so (as servers do with idle connections).
  FakeServer server([](FakeConn& c, const FakeRequest& r) {
    misbehave(c, r);
    return false;
  });
  ClientOptions opt = errors_options(server.port());
  opt.threads = 1;
  Runner runner(opt);
  ErrorStage s({"ok", "ok", "ok"});
  s.in.max_concurrency = 1;
  // The close reaches the client before the reuse.
  for (std::size_t i = 0; i < 3; ++i) s.in.requests[i].offset_ns = static_cast<Nanos>(i) * 50'000'000;
  for (const auto& r : runner.run_stage(s.in, {}, {}).records) EXPECT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(server.requests(), 3);
}

TEST(RunnerErrors, RequestStopCancelsInFlightAndUnsent) {
  FakeServer server(misbehave);
  ClientOptions opt = errors_options(server.port());
  opt.idle_timeout_s = 10;
  opt.stop_grace_s = 0.2;
  Runner runner(opt);
  ErrorStage s({"stall", "stall", "stall", "stall", "stall"});
  s.in.max_concurrency = 2;
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    runner.request_stop();
  });
  int progress_calls = 0;
  Progress last;
  const auto start = now_ns();
  const StageOutput out = runner.run_stage(s.in, {}, [&](const Progress& p) {
    ++progress_calls;
    last = p;
  });
  stopper.join();
  EXPECT_LT(now_ns() - start, 1'500'000'000);
  EXPECT_TRUE(out.aborted);
  EXPECT_TRUE(runner.stop_requested());
  for (const auto& r : out.records) {
    EXPECT_EQ(r.outcome, Outcome::cancelled) << r.index;
    EXPECT_TRUE(r.aborted);
  }
  EXPECT_EQ(out.records[0].token_ns.size(), 1u);  // what arrived before the stop is kept
  EXPECT_EQ(out.records[4].error, "not sent: the run was stopped");
  // Two were in flight (cancelled: failed); three were never handed to a connection: not sent,
  // and not failed either.
  for (std::size_t i = 0; i < out.records.size(); ++i) EXPECT_EQ(out.records[i].was_sent, i < 2) << i;
  EXPECT_GE(progress_calls, 2);
  EXPECT_EQ(last.done, 5);
  EXPECT_EQ(last.sent, 2);
  EXPECT_EQ(last.failed, 2);
}

}  // namespace
}  // namespace sb

namespace sb {
namespace {

TEST(RunnerTls, StreamsOverTlsWhenInsecureAndRejectsAnUntrustedCertificate) {
  test::TlsFakeServer server(std::string(test::kSseHead) + test::http_chunk(test::token_event("a")) +
                             test::http_chunk(test::token_event("b", true)) +
                             test::http_chunk("data: [DONE]\n\n") + test::kLastChunk);
  ClientOptions opt;
  opt.endpoint = parse_base_url("https://localhost:" + std::to_string(server.port()));
  opt.threads = 1;
  opt.endpoint.insecure = true;
  ErrorStage s({"{}"});
  {
    Runner runner(opt);
    const RequestRecord r = runner.run_stage(s.in, {}, {}).records[0];
    EXPECT_EQ(r.outcome, Outcome::ok) << r.error;
    EXPECT_EQ(r.token_ns.size(), 2u);
  }
  opt.endpoint.insecure = false;
  Runner runner(opt);
  const RequestRecord r = runner.run_stage(s.in, {}, {}).records[0];
  EXPECT_EQ(r.outcome, Outcome::connect_error);
  EXPECT_NE(r.error.find("certificate verification failed"), std::string::npos) << r.error;
}

}  // namespace
}  // namespace sb
