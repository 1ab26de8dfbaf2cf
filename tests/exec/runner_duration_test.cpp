// Tests for the runner's duration bound (StageInput::issue_for_ns, --stage-seconds): nothing is sent
// after the deadline, cycled requests keep unique ids and reuse their template's body, and the
// in-flight requests finish after it (the drain).
#include <gtest/gtest.h>

#include <mutex>
#include <set>

#include "exec/runner.hpp"
#include "net/fake_server.hpp"

namespace sb {
namespace {

constexpr Nanos kMsDur = 1'000'000;

// `tokens` events `gap_ms` apart, then usage and [DONE].
bool duration_stream(test::FakeConn& c, int tokens, int gap_ms) {
  bool ok = c.send(test::kSseHead);
  for (int i = 0; i < tokens && ok; ++i) {
    if (i > 0) c.sleep_ms(gap_ms);
    ok = c.send(test::http_chunk(test::token_event("t", i + 1 == tokens)));
  }
  return ok && c.send(test::http_chunk("data: [DONE]\n\n")) && c.send(test::kLastChunk);
}

std::string header_value(const std::string& head, const std::string& name) {
  const std::size_t at = head.find(name + ": ");
  if (at == std::string::npos) return "";
  const std::size_t from = at + name.size() + 2;
  return head.substr(from, head.find("\r\n", from) - from);
}

TEST(RunnerDuration, ClosedLoopCyclesUntilTheDeadlineThenDrains) {
  std::mutex mu;
  std::multiset<std::string> ids, bodies;
  test::FakeServer server([&](test::FakeConn& c, const test::FakeRequest& r) {
    {
      std::lock_guard<std::mutex> lk(mu);
      ids.insert(header_value(r.head, "x-request-id"));
      bodies.insert(r.body);
    }
    return duration_stream(c, 3, 20);  // ~40 ms per request
  });
  ClientOptions opt;
  opt.endpoint = parse_base_url("http://127.0.0.1:" + std::to_string(server.port()));
  opt.threads = 2;
  opt.idle_timeout_s = 5;
  Runner runner(opt);
  const std::vector<std::string> body_list{"A", "B"};
  StageInput in;
  in.bodies = &body_list;
  in.requests = {StageRequest{"r0", 1, 3, 0}, StageRequest{"r1", 1, 3, 0}};
  in.max_concurrency = 2;
  in.issue_for_ns = 300 * kMsDur;
  in.issue_count = kUntilDeadline;
  const StageOutput out = runner.run_stage(in, {}, {});

  ASSERT_EQ(out.issue_end_ns, 300 * kMsDur);
  // Two slots of ~40 ms for 300 ms: about 15 requests; well more than the two templates.
  ASSERT_GE(out.records.size(), 6u);
  ASSERT_LE(out.records.size(), 20u);
  for (std::size_t i = 0; i < out.records.size(); ++i) {
    const RequestRecord& r = out.records[i];
    EXPECT_EQ(r.index, i);
    EXPECT_TRUE(r.ok()) << r.error;
    EXPECT_LT(r.sent_ns, 300 * kMsDur);  // nothing sent after the deadline
  }
  EXPECT_GT(out.end_ns, 300 * kMsDur);  // the last ones finished after it
  std::lock_guard<std::mutex> lk(mu);
  EXPECT_EQ(ids.size(), out.records.size());
  EXPECT_EQ(std::set<std::string>(ids.begin(), ids.end()).size(), ids.size());  // unique ids
  EXPECT_EQ(ids.count("r0"), 1u);
  EXPECT_EQ(ids.count("r0-c1"), 1u);
  EXPECT_EQ(ids.count("r1-c1"), 1u);
  EXPECT_EQ(bodies.count("A") + bodies.count("B"), out.records.size());
  EXPECT_LE(bodies.count("A") - bodies.count("B") + 1, 2u);  // alternating templates: counts differ by <= 1
}

TEST(RunnerDuration, CountBoundEndsFirst) {
  test::FakeServer server([](test::FakeConn& c, const test::FakeRequest&) { return duration_stream(c, 1, 0); });
  ClientOptions opt;
  opt.endpoint = parse_base_url("http://127.0.0.1:" + std::to_string(server.port()));
  opt.threads = 1;
  Runner runner(opt);
  const std::vector<std::string> body_list{"A"};
  StageInput in;
  in.bodies = &body_list;
  in.requests = {StageRequest{"q", 1, 1, 0}};
  in.max_concurrency = 1;
  in.issue_for_ns = 60'000 * kMsDur;  // a minute: the 5 requests end first
  in.issue_count = 5;
  const StageOutput out = runner.run_stage(in, {}, {});
  EXPECT_EQ(out.records.size(), 5u);
  EXPECT_EQ(out.issue_end_ns, -1);
  EXPECT_EQ(stage_request_id(in, 4), "q-c4");
}

}  // namespace
}  // namespace sb
