#pragma once
// SIGINT and SIGTERM as a stop request, with no work in a signal handler: the constructor blocks
// both signals in the calling thread (so in every thread started after it, which inherit the mask)
// and starts one watcher thread that waits for them with sigwait(); each one that arrives requests
// the stop of token(); a second one while the stop is under way ends the process at once (exit 130,
// no grace period). Create it before any other thread, on the main thread.
#include <atomic>
#include <csignal>
#include <stop_token>
#include <thread>

namespace sb::app {

class SignalStop {
 public:
  SignalStop();
  ~SignalStop();  // stops the watcher, drops signals still pending, restores the mask
  SignalStop(const SignalStop&) = delete;
  SignalStop& operator=(const SignalStop&) = delete;

  std::stop_token token() const noexcept { return source_.get_token(); }

 private:
  void watch();

  std::stop_source source_;
  sigset_t signals_{};
  sigset_t old_mask_{};
  std::atomic<bool> closing_{false};  // set before the destructor's wake-up signal
  std::thread watcher_;
};

}  // namespace sb::app
