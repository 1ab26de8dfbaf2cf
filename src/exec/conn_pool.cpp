#include "exec/conn_pool.hpp"

namespace sb {

ConnectionPool::~ConnectionPool() { clear(); }

std::unique_ptr<PooledConn> ConnectionPool::acquire(bool reserved, Nanos now_ns) {
  // One unit of the idle count belongs to each idle connection; a reservation has taken one unit
  // already, which pays for the first connection taken off the list.
  bool paid = reserved;
  while (!idle_.empty()) {
    auto c = std::move(idle_.back());
    idle_.pop_back();
    if (!paid) idle_count_->fetch_sub(1, std::memory_order_relaxed);
    paid = false;
    const bool trusted = c->kept_before && now_ns - c->idle_since_ns < trusted_idle_ns_;
    if (trusted ? c->stream->open() : c->stream->usable()) return c;
    c->stream->close();  // closed by the server while idle: drop it, try the next
  }
  // The reserved connection went to a job that had none reserved (or was stale): give the unit back.
  if (paid) idle_count_->fetch_add(1, std::memory_order_relaxed);
  return fresh();
}

std::unique_ptr<PooledConn> ConnectionPool::fresh() {
  return std::make_unique<PooledConn>(factory_(), *decoder_, keep_text_);
}

void ConnectionPool::release(std::unique_ptr<PooledConn> c, bool keep, Nanos now_ns) {
  if (!keep) {
    c->stream->close();
    return;
  }
  c->idle_since_ns = now_ns;
  idle_.push_back(std::move(c));
  idle_count_->fetch_add(1, std::memory_order_relaxed);
}

void ConnectionPool::cancel_active() {
  for (PooledConn* c : active_) {
    c->cancelled = true;
    c->stream->close();
  }
}

void ConnectionPool::clear() {
  for (auto& c : idle_) c->stream->close();
  idle_.clear();
}

}  // namespace sb
