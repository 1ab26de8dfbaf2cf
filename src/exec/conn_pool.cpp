#include "exec/conn_pool.hpp"

#include "exec/resend_rule.hpp"

namespace sb {
namespace {

// A connection kept for the server's close that is still open this long after its reply is closed
// from this side: the server keeps it after all, or is slow to close it.
constexpr Nanos kClosingLimitNs = 2'000'000'000;
// At most this many wait for the server's close (a worker's burst of replies at high concurrency).
constexpr std::size_t kMaxClosing = 4096;
// Reply closes seen before the pool judges (one could be an idle timeout's coincidence).
constexpr std::uint64_t kMinReplyCloses = 2;

}  // namespace

ConnectionPool::~ConnectionPool() { clear(); }

std::unique_ptr<PooledConn> ConnectionPool::acquire(bool reserved, Nanos now_ns) {
  // One unit of the idle count belongs to each idle connection; a reservation has taken one unit
  // already, which pays for the first connection taken off the list.
  bool paid = reserved;
  if (fresh_per_request_) sweep_closing(now_ns);
  while (!idle_.empty()) {
    auto c = std::move(idle_.back());
    idle_.pop_back();
    if (!paid) idle_count_->fetch_sub(1, std::memory_order_relaxed);
    paid = false;
    const Nanos idle_ns = now_ns - c->idle_since_ns;
    // Half the server's own idle limit: its close would come near this request's write.
    if (c->server_idle_limit_ns > 0 && 2 * idle_ns >= c->server_idle_limit_ns) {
      c->stream->close();
      continue;
    }
    const bool trusted = c->kept_before && idle_ns < trusted_idle_ns_;
    if (trusted ? c->stream->open() : c->stream->usable()) return c;
    c->stream->close();  // closed by the server while idle: drop it, try the next
    if (closed_right_after_reply(idle_ns, reply_close_window_ns_)) saw_reply_close();
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
  if (fresh_per_request_) {
    closing_.push_back(std::move(c));
    sweep_closing(now_ns);
    return;
  }
  idle_.push_back(std::move(c));
  idle_count_->fetch_add(1, std::memory_order_relaxed);
}

void ConnectionPool::saw_reply_close() {
  ++reply_closes_;
  if (fresh_per_request_ || reply_closes_ < kMinReplyCloses || reply_closes_ <= 2 * kept_reuses_) return;
  fresh_per_request_ = true;
  // The idle ones wait for their close too. Reservations already taken for them are given back by
  // acquire() (a reserved job finding no idle connection returns its unit), so the count balances.
  idle_count_->fetch_sub(static_cast<int>(idle_.size()), std::memory_order_relaxed);
  for (auto& c : idle_) closing_.push_back(std::move(c));
  idle_.clear();
}

void ConnectionPool::sweep_closing(Nanos now_ns) {
  while (!closing_.empty()) {
    PooledConn& c = *closing_.front();
    const bool server_closed = !c.stream->usable();
    if (!server_closed && closing_.size() <= kMaxClosing && now_ns - c.idle_since_ns < kClosingLimitNs) return;
    c.stream->close();
    closing_.pop_front();
  }
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
  for (auto& c : closing_) c->stream->close();
  closing_.clear();
}

}  // namespace sb
