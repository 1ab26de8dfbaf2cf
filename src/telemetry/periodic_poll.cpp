#include "telemetry/periodic_poll.hpp"

#include <utility>

namespace sb::telemetry {

PeriodicPoll::PeriodicPoll(double period_s, std::function<void()> tick)
    : period_(std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(period_s))),
      tick_(std::move(tick)),
      thread_([this](std::stop_token stop) { run(stop); }) {}

PeriodicPoll::~PeriodicPoll() {
  thread_.request_stop();  // the stop_token-aware wait below wakes on it
  thread_.join();
}

void PeriodicPoll::run(std::stop_token stop) {
  auto next = std::chrono::steady_clock::now();
  while (!stop.stop_requested()) {
    tick_();
    next += period_;
    const auto now = std::chrono::steady_clock::now();
    if (next < now) next = now;
    std::unique_lock lock(mu_);
    wake_.wait_until(lock, stop, next, [] { return false; });
  }
}

}  // namespace sb::telemetry
