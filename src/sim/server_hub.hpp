#pragma once
// The front end's side of the backend (server.hpp): requests submitted and cancelled as connections
// ask, and one timer re-armed to the earliest wake-up advance() returns; each wake hands the
// produced tokens to their connections. Names Asio types: only the server's translation units
// (server.cpp, server_session.cpp, server_hub.cpp) include it.
#include <cstdint>
#include <memory>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include "core/clock.hpp"
#include "sim/backend.hpp"

namespace sb::sim {

class Session;

// Owns the backend. Every call happens on the io thread, so neither needs a lock.
class Hub {
 public:
  Hub(boost::asio::io_context& ioc, std::unique_ptr<Backend> backend)
      : timer_(ioc), backend_(std::move(backend)) { events_.reserve(4096); }

  Backend& backend() { return *backend_; }
  void submit(Session* s, const SimRequest& r) {
    sessions_[r.id] = s;
    backend_->submit(r, now_ns());
    pump();
  }
  void cancel(std::uint64_t id) {
    if (sessions_.erase(id) == 0) return;
    backend_->cancel(id, now_ns());
    pump();
  }
  void shutdown() { timer_.cancel(); sessions_.clear(); }

 private:
  void pump();
  void rearm(std::optional<Nanos> next);

  boost::asio::steady_timer timer_;
  std::unique_ptr<Backend> backend_;
  std::vector<TokenEvent> events_;                     // reused on every wake-up
  std::unordered_map<std::uint64_t, Session*> sessions_;
  Nanos armed_ns_ = -1;
  Nanos woke_ns_ = 0;  // last timer wake-up
};

}  // namespace sb::sim
