#pragma once
// Calls `tick` on a thread of its own at once and then every `period_s`, on absolute deadlines (a
// slow tick does not shift the ones after it; one later than its deadline is followed at once by
// the next, never by a burst to catch up), until destroyed. The GPU sampler and the /metrics
// scraper poll this way.
//
// Example:
//   PeriodicPoll poll(0.5, [this] { sample(); });  // a member declared last: it stops first
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace sb::telemetry {

class PeriodicPoll {
 public:
  PeriodicPoll(double period_s, std::function<void()> tick);
  ~PeriodicPoll();  // stops the thread, waking it from its wait, and joins it
  PeriodicPoll(const PeriodicPoll&) = delete;
  PeriodicPoll& operator=(const PeriodicPoll&) = delete;

 private:
  void run(std::stop_token stop);

  std::chrono::steady_clock::duration period_;
  std::function<void()> tick_;
  std::mutex mu_;  // only for the wait: the tick's own data has its owner's lock
  std::condition_variable_any wake_;
  std::jthread thread_;  // last: started once the members above exist
};

}  // namespace sb::telemetry
