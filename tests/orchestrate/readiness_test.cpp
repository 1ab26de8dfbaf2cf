// Readiness against the in-process simulator, a port nobody listens on, and an exited process.
#include "orchestrate/readiness.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <thread>

#include "orchestrate/free_port.hpp"
#include "sim/fixed_cost.hpp"
#include "sim/server.hpp"

namespace sb::orchestrate {
namespace {

Endpoint loopback_at(std::uint16_t port) {
  Endpoint ep;
  ep.host = "127.0.0.1";
  ep.port = port;
  return ep;
}

TEST(Readiness, ReadyOnceTheSimulatorServes) {
  sim::ServerOptions opt;
  opt.port = 0;
  sim::Server server(opt, std::make_unique<sim::FixedCostBackend>(sim::FixedCostOptions{}));
  server.start();
  const ReadyResult r = wait_ready(ReadyParams{loopback_at(server.port()), 5}, [] { return false; }, {});
  EXPECT_EQ(r.state, ReadyState::ready);
  EXPECT_EQ(r.last_http_status, 200);
  EXPECT_LT(r.waited_s, 2);
}

TEST(Readiness, TimesOutWhenNothingListens) {
  const ReadyResult r = wait_ready(ReadyParams{loopback_at(pick_free_port()), 0.3, 0.05}, [] { return false; }, {});
  EXPECT_EQ(r.state, ReadyState::timed_out);
  EXPECT_EQ(r.last_http_status, 0);
  EXPECT_GE(r.waited_s, 0.3);
}

TEST(Readiness, FailsFastWhenTheProcessExited) {
  int polls = 0;
  const ReadyResult r =
      wait_ready(ReadyParams{loopback_at(pick_free_port()), 30, 0.05}, [&] { return ++polls > 2; }, {});
  EXPECT_EQ(r.state, ReadyState::exited);
  EXPECT_LT(r.waited_s, 5);
}

TEST(Readiness, AStopRequestEndsTheWaitAtOnce) {
  std::stop_source source;
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(150));
    source.request_stop();
  });
  const auto t0 = std::chrono::steady_clock::now();
  const ReadyResult r = wait_ready(
      ReadyParams{loopback_at(pick_free_port()), 30, 10}, [] { return false; }, source.get_token());
  stopper.join();
  EXPECT_EQ(r.state, ReadyState::stopped);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 3);
}

}  // namespace
}  // namespace sb::orchestrate
