#include "app/signal_stop.hpp"

#include <pthread.h>
#include <unistd.h>

#include <cstdlib>

#include "orchestrate/live_groups.hpp"

namespace sb::app {

SignalStop::SignalStop() {
  sigemptyset(&signals_);
  sigaddset(&signals_, SIGINT);
  sigaddset(&signals_, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals_, &old_mask_);
  watcher_ = std::thread([this] { watch(); });
}

void SignalStop::watch() {
  for (;;) {
    int sig = 0;
    if (sigwait(&signals_, &sig) != 0) continue;
    if (closing_.load()) return;
    if (source_.stop_requested()) {
      // The second Ctrl-C: the user does not want the grace period, nor the outputs' last rewrite.
      static constexpr char kLine[] = "servebench: interrupted again: exiting now, without waiting\n";
      [[maybe_unused]] const ssize_t n = ::write(STDERR_FILENO, kLine, sizeof kLine - 1);
      orchestrate::kill_live_groups();  // `tune`'s servers: exiting now must not leave them running
      std::_Exit(130);  // ExitCode::aborted
    }
    source_.request_stop();
  }
}

SignalStop::~SignalStop() {
  closing_.store(true);
  pthread_kill(watcher_.native_handle(), SIGTERM);  // blocked there too: sigwait() returns it
  watcher_.join();
  // A signal that arrived after the watcher's last sigwait() would act on its default (killing
  // the process) once unblocked: the run has finished, so drop it.
  const timespec zero{0, 0};
  while (sigtimedwait(&signals_, nullptr, &zero) > 0) {
  }
  pthread_sigmask(SIG_SETMASK, &old_mask_, nullptr);
}

}  // namespace sb::app
