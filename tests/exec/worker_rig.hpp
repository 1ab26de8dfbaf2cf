#pragma once
// The worker tests' rig: one Worker on a FakeNetwork (exec/fake_stream.hpp), the canned stream
// every test expects, and its checks. Shared by worker_test.cpp and worker_faults_test.cpp.
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>

#include "exec/fake_stream.hpp"
#include "exec/runner.hpp"
#include "exec/worker.hpp"
#include "net/fake_server.hpp"

namespace sb::test {

// A usage chunk and [DONE] after three token events: the answer every stream test expects.
inline std::string worker_sse_response() {
  return std::string(test::kSseHead) + test::http_chunk(test::token_event("a")) +
         test::http_chunk(test::token_event("b")) + test::http_chunk(test::token_event("c", true)) +
         test::http_chunk(R"(data: {"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":7}})"
                          "\n\n") +
         test::http_chunk("data: [DONE]\n\n") + test::kLastChunk;
}

// Where each token event of worker_sse_response() ends: the byte whose arrival completes it.
inline std::vector<std::size_t> worker_event_ends(const std::string& response) {
  std::vector<std::size_t> ends;
  for (const char* text : {"\"a\"", "\"b\"", "\"c\""}) {
    const std::size_t at = response.find(text);
    ends.push_back(response.find("\n\n", at) + 1);
  }
  return ends;
}

inline std::vector<FakeRead> worker_one_read(const std::string& bytes) { return {FakeRead{bytes, {}}}; }

// One Worker on a FakeNetwork; send() submits one request and waits for its completion.
struct WorkerRig {
  test::FakeNetwork net;
  ClientOptions opt;
  std::string body = R"({"prompt":"x"})";
  std::deque<RequestRecord> records;
  std::mutex mu;
  std::condition_variable cv;
  std::size_t completed = 0;
  Nanos t0 = 0;
  int max_tokens = 3;  // the requests' expected_output_tokens
  std::uint32_t request_cycle = 0;
  std::unique_ptr<Worker> worker;

  WorkerRig() {
    opt.endpoint = parse_base_url("http://fake.test:8000");
    opt.threads = 1;
    opt.keep_text = true;
  }
  void start() {
    worker = std::make_unique<Worker>(
        opt,
        [this](RequestRecord&) {
          std::lock_guard<std::mutex> lk(mu);
          ++completed;
          cv.notify_all();
        },
        net.factory());
  }
  // Submits `n` requests at once and waits for all of them.
  void send_together(int n) {
    if (!worker) start();
    t0 = now_ns();
    for (int i = 0; i < n; ++i) {
      RequestRecord& rec = records.emplace_back();
      rec.index = static_cast<std::uint32_t>(records.size() - 1);
      rec.expected_output_tokens = 3;
      worker->submit(Job{&rec, &body, "", 0, t0});
    }
    std::unique_lock<std::mutex> lk(mu);
    EXPECT_TRUE(cv.wait_for(lk, std::chrono::seconds(10), [&] { return completed == records.size(); }));
  }
  const RequestRecord& send() {
    if (!worker) start();
    RequestRecord& rec = records.emplace_back();
    rec.index = static_cast<std::uint32_t>(records.size() - 1);
    rec.expected_output_tokens = max_tokens;
    t0 = now_ns();
    worker->submit(Job{&rec, &body, "req-1", request_cycle, t0});
    std::unique_lock<std::mutex> lk(mu);
    const bool done = cv.wait_for(lk, std::chrono::seconds(10), [&] { return completed == records.size(); });
    EXPECT_TRUE(done) << "the worker never completed request " << rec.index;
    return rec;
  }
};

inline void expect_streamed_ok(const RequestRecord& r) {
  EXPECT_EQ(r.outcome, Outcome::ok) << r.error;
  EXPECT_EQ(r.http_status, 200);
  EXPECT_EQ(r.token_ns.size(), 3u);
  EXPECT_EQ(r.generated_text, "abc");
  EXPECT_EQ(r.output_tokens, 7);  // usage wins over the three events
  EXPECT_EQ(r.prompt_tokens, 3);
  EXPECT_EQ(r.token_source, TokenSource::usage_chunk);
  EXPECT_FALSE(r.aborted);
}

}  // namespace sb::test
