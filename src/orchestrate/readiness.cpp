#include "orchestrate/readiness.hpp"

#include <chrono>
#include <condition_variable>
#include <mutex>

#include "core/error.hpp"
#include "net/http_call.hpp"

namespace sb::orchestrate {

namespace {

// One GET; 0 when nothing answered (refused, reset, timed out: the server is not up yet).
int status_of_get(const ReadyParams& p, std::string_view path) {
  try {
    return http_call(p.endpoint, "GET", p.endpoint.base_path + std::string(path), {}, "", p.call_timeout_s).status;
  } catch (const UserError&) {
    return 0;
  }
}

// Sleeps `s` seconds, or less when a stop is requested meanwhile (Ctrl-C answers at once).
void pause_or_stop(double s, const std::stop_token& stop) {
  std::mutex m;
  std::condition_variable_any cv;
  std::unique_lock lock(m);
  cv.wait_for(lock, stop, std::chrono::duration<double>(s), [] { return false; });
}

}  // namespace

ReadyResult wait_ready(const ReadyParams& p, const std::function<bool()>& has_exited, std::stop_token stop) {
  const auto t0 = std::chrono::steady_clock::now();
  const auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  ReadyResult r;
  bool healthy = false;
  for (;;) {
    r.waited_s = elapsed();
    if (stop.stop_requested()) {
      r.state = ReadyState::stopped;
      return r;
    }
    if (has_exited()) {
      r.state = ReadyState::exited;
      return r;
    }
    if (!healthy) {
      r.last_http_status = status_of_get(p, "/health");
      healthy = r.last_http_status == 200 || r.last_http_status == 404;
    }
    if (healthy) {
      r.last_http_status = status_of_get(p, "/v1/models");
      if (r.last_http_status == 200) {
        r.waited_s = elapsed();
        r.state = ReadyState::ready;
        return r;
      }
    }
    if (elapsed() >= p.timeout_s) {
      r.state = ReadyState::timed_out;
      return r;
    }
    pause_or_stop(p.poll_s, stop);
  }
}

}  // namespace sb::orchestrate
