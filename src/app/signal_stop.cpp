#include "app/signal_stop.hpp"

#include <pthread.h>

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
    source_.request_stop();  // a second Ctrl-C finds the stop already requested: nothing more
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
