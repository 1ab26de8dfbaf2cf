// The HTTP front end in-process, over real loopback sockets, with the deterministic backend.
#include "sim/server.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <thread>

#include "sim/fixed_cost.hpp"
#include "sim/raw_http_client.hpp"
#include "sim/token_log.hpp"

namespace sb::sim {
namespace {

using sb::sim::get_request;
using sb::sim::http_exchange;
using sb::sim::post_request;

struct Running {
  explicit Running(ServerOptions opt, FixedCostOptions costs = {.ttft_ms = 20, .itl_ms = 5}) {
    opt.port = 0;
    server = std::make_unique<Server>(std::move(opt), std::make_unique<FixedCostBackend>(costs));
    server->start();
  }
  std::unique_ptr<Server> server;
  std::uint16_t port() const { return server->port(); }
};

// Options with one change from the defaults (GCC 12 warns on designated initializers that skip
// members of class type, so tests set fields by name instead).
template <class Fn>
ServerOptions with(Fn&& set) {
  ServerOptions o;
  set(o);
  return o;
}

const std::string kStreamBody =
    R"({"model":"sim-model","prompt":"0123456789abcdef","max_tokens":5,"stream":true,"stream_options":{"include_usage":true}})";

TEST(SimServer, HealthAndModels) {
  Running s(with([](ServerOptions& o) {
    o.served_model_name = "served";
    o.model_root = "/models/x";
    o.max_model_len = 4096;
  }));
  EXPECT_EQ(http_exchange(s.port(), get_request("/health")).status, 200);
  const auto r = http_exchange(s.port(), get_request("/v1/models"));
  ASSERT_EQ(r.status, 200);
  const auto j = nlohmann::json::parse(r.body);
  EXPECT_EQ(j["data"][0]["id"], "served");
  EXPECT_EQ(j["data"][0]["root"], "/models/x");
  EXPECT_EQ(j["data"][0]["max_model_len"], 4096);
}

TEST(SimServer, StreamingCompletionTimingAndUsage) {
  Running s({});
  const Nanos t0 = now_ns();
  const auto r = http_exchange(s.port(), post_request("/v1/completions", kStreamBody, "x-request-id: abc\r\n"));
  ASSERT_EQ(r.status, 200);
  EXPECT_TRUE(r.complete);
  ASSERT_EQ(r.events.size(), 7u);  // 5 tokens, usage, [DONE]
  const auto first = nlohmann::json::parse(r.events[0]);
  EXPECT_EQ(first["id"], "cmpl-abc");
  const auto usage = nlohmann::json::parse(r.events[5]);
  EXPECT_EQ(usage["usage"]["prompt_tokens"], 4);  // 16 bytes / 4 without a tokenizer
  EXPECT_EQ(usage["usage"]["completion_tokens"], 5);
  EXPECT_EQ(r.events[6], "[DONE]");
  // Token k is due 20 + 5k ms after arrival (absolute deadlines, so a late token k does not move
  // k+1: only lower bounds from t0 hold on a busy machine).
  for (int k = 0; k < 5; ++k) EXPECT_GE(r.event_ns[k] - t0, (20 + 5 * k) * 1'000'000) << k;
  EXPECT_LT(r.event_ns[4] - t0, 1'000'000'000);
}

TEST(SimServer, ChatNonStreaming) {
  Running s({});
  const auto r = http_exchange(s.port(), post_request("/v1/chat/completions",
      R"({"messages":[{"role":"user","content":"hello"}],"max_completion_tokens":3})"));
  ASSERT_EQ(r.status, 200);
  EXPECT_TRUE(r.complete);
  const auto j = nlohmann::json::parse(r.body);
  EXPECT_EQ(j["object"], "chat.completion");
  EXPECT_EQ(j["usage"]["completion_tokens"], 3);
  EXPECT_EQ(j["choices"][0]["finish_reason"], "length");
}

TEST(SimServer, ErrorsUnknownModelAuthPathAndLength) {
  Running s(with([](ServerOptions& o) {
    o.max_model_len = 100;
    o.api_key = "k1";
  }));
  const std::string auth = "Authorization: Bearer k1\r\n";
  auto r = http_exchange(s.port(), post_request("/v1/completions", kStreamBody));
  EXPECT_EQ(r.status, 401);
  EXPECT_EQ(nlohmann::json::parse(r.body)["error"]["code"], 401);
  EXPECT_EQ(http_exchange(s.port(), get_request("/v1/models", "Authorization: Bearer nope\r\n")).status, 401);
  EXPECT_EQ(http_exchange(s.port(), get_request("/v1/models", auth)).status, 200);
  EXPECT_EQ(http_exchange(s.port(), get_request("/health")).status, 200);  // not under /v1: open
  r = http_exchange(s.port(), post_request("/v1/completions", R"({"model":"other","prompt":"x"})", auth));
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(nlohmann::json::parse(r.body)["error"]["message"], "The model `other` does not exist.");
  r = http_exchange(s.port(), post_request("/v1/completions", R"({"prompt":"x","max_tokens":100})", auth));
  EXPECT_EQ(r.status, 400);
  EXPECT_NE(r.body.find("maximum context length is 100"), std::string::npos);
  EXPECT_EQ(http_exchange(s.port(), post_request("/v1/completions", "{", auth)).status, 400);
  EXPECT_EQ(http_exchange(s.port(), get_request("/nope")).status, 404);
  EXPECT_EQ(http_exchange(s.port(), post_request("/start_profile", "")).status, 404);
  EXPECT_EQ(http_exchange(s.port(), post_request("/tokenize", R"({"prompt":"x"})")).status, 404);
}

TEST(SimServer, KeepAliveServesSeveralRequestsOnOneConnection) {
  Running s({});
  const std::string body = R"({"prompt":"x","max_tokens":2})";
  std::string first = post_request("/v1/completions", body);
  first.replace(first.find("Connection: close"), 17, "Connection: keep-alive");
  const auto r = http_exchange(s.port(), first + post_request("/v1/completions", body));
  // Both responses arrive on the one connection; the parser sees the first, the raw text both.
  EXPECT_EQ(r.status, 200);
  EXPECT_NE(r.body.find("HTTP/1.1 200 OK", 10), std::string::npos);
}

TEST(SimServer, InjectedFailureAndDrop) {
  {
    Running s(with([](ServerOptions& o) { o.faults = {.fail_ratio = 1.0, .fail_status = 503}; }));
    const auto r = http_exchange(s.port(), post_request("/v1/completions", kStreamBody));
    EXPECT_EQ(r.status, 503);
    EXPECT_EQ(nlohmann::json::parse(r.body)["error"]["code"], 503);
  }
  Running s(with([](ServerOptions& o) { o.faults.drop_ratio = 1.0; }));
  const auto r = http_exchange(s.port(), post_request("/v1/completions", kStreamBody));
  EXPECT_EQ(r.status, 200);
  EXPECT_FALSE(r.complete);
  EXPECT_GE(r.events.size(), 1u);
  EXPECT_LE(r.events.size(), 3u);
}

TEST(SimServer, DisconnectCancelsTheRequest) {
  Running s({}, {.ttft_ms = 1, .itl_ms = 2});
  const std::string req = post_request("/v1/completions", R"({"prompt":"x","max_tokens":10000,"stream":true})");
  const int fd = sb::sim::connect_loopback(s.port());
  ASSERT_EQ(::send(fd, req.data(), req.size(), MSG_NOSIGNAL), static_cast<ssize_t>(req.size()));
  char buf[4096];
  ASSERT_GT(::recv(fd, buf, sizeof buf, 0), 0);
  ::close(fd);
  // The next token write fails and cancels the request; poll /metrics until it is gone.
  std::string metrics;
  for (int i = 0; i < 200; ++i) {
    metrics = http_exchange(s.port(), get_request("/metrics")).body;
    if (metrics.find("servebench_sim_requests_cancelled_total{model_name=\"sim-model\"} 1") != std::string::npos) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_NE(metrics.find("vllm:num_requests_running{model_name=\"sim-model\"} 0"), std::string::npos) << metrics;
  EXPECT_NE(metrics.find("servebench_sim_requests_cancelled_total{model_name=\"sim-model\"} 1"), std::string::npos);
}

TEST(SimServer, TokenLogHoldsEverySendTimeBeforeTheClientsRecv) {
  const auto path = std::filesystem::temp_directory_path() / ("sim_token_log_" + std::to_string(::getpid()));
  RawResponse r;
  {
    Running s(with([&](ServerOptions& o) { o.token_log_path = path.string(); }));
    r = http_exchange(s.port(), post_request("/v1/completions", kStreamBody, "x-request-id: req-9\r\n"));
    s.server->stop();
  }
  const auto rows = read_token_log(path);
  std::filesystem::remove(path);
  ASSERT_EQ(rows.size(), 5u);
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(rows[i].request_id, "req-9");
    EXPECT_EQ(rows[i].token_index, i);
    EXPECT_LE(rows[i].send_ns, r.event_ns[i]);
    EXPECT_LT(r.event_ns[i] - rows[i].send_ns, 50'000'000);  // loopback: far below 50 ms
  }
}

}  // namespace
}  // namespace sb::sim
