#pragma once
// The keep-alive connections of one worker: idle ones (reused last-in first-out: the most recently
// used socket is the least likely to have been closed by the server) and the ones serving a request
// (Worker::cancel_all closes those). Used only on the worker's thread, except the idle count, which
// the dispatcher reads to prefer a worker that needs no new socket.
#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <vector>

#include "exec/exchange.hpp"

namespace sb {

// Makes a new, unconnected connection (net::Connection in a run, an in-memory fake in tests).
using StreamFactory = std::function<std::unique_ptr<ByteStream>()>;

class ConnectionPool {
 public:
  // `idle_count` is the worker's public count of idle connections (submit() reserves from it).
  // `trusted_idle_ns`: see acquire(); 0 looks at every idle connection's socket before reuse.
  // `reply_close_window_ns` (ClientOptions): how soon after a reply a server's close shows a server
  // that closes after its replies; 0: never judged so.
  ConnectionPool(StreamFactory factory, StreamDecoder& decoder, bool keep_text, std::atomic<int>& idle_count,
                 Nanos trusted_idle_ns = 0, Nanos reply_close_window_ns = 0)
      : factory_(std::move(factory)), decoder_(&decoder), keep_text_(keep_text), idle_count_(&idle_count),
        trusted_idle_ns_(trusted_idle_ns), reply_close_window_ns_(reply_close_window_ns) {}
  ~ConnectionPool();

  // An idle connection that is still usable (stale ones are dropped), else a new one. `reserved`:
  // submit() already took one off the idle count for this request. `now_ns`: the steady clock.
  // A connection idle for less than trusted_idle_ns, that the server kept open across a reused
  // request before (PooledConn::kept_before), is taken without looking at its socket
  // (Connection::usable's recv): under closed-loop load that system call per request finds
  // nothing. Safe because servers close idle connections after seconds (gunicorn 2 s, uvicorn and
  // llama.cpp 5 s, nginx 75 s), and a request that meets a close anyway is judged by
  // exec/resend_rule.hpp. One idle for half the server's advertised `Keep-Alive: timeout` or longer
  // is closed unused: the server is about to close it. Once the server is seen closing its
  // connections right after its replies (fresh_per_request()), every request gets a new one.
  std::unique_ptr<PooledConn> acquire(bool reserved, Nanos now_ns);
  // A new connection, never an idle one (a retry: another idle socket may be as stale as the first).
  std::unique_ptr<PooledConn> fresh();
  // After a request: back to the idle list when `keep` (idle from `now_ns`), else closed. When the
  // pool opens a new connection per request, a kept one waits instead for the server's close
  // (closed here after that, so this client holds no TIME_WAIT socket per request).
  void release(std::unique_ptr<PooledConn> c, bool keep, Nanos now_ns);

  // Evidence about the server's keep-alive: a connection closed by the server right after its reply
  // (found so before reuse, or a request resent by the reply-close rule), and a reused connection
  // that served its request and stayed open. A server whose reply closes outnumber its kept reuses
  // more than twice over (never kept: llama.cpp; not one closing after every k-th reply) gets a new
  // connection per request from then on, before it can race a request.
  void saw_reply_close();
  void saw_kept_reuse() noexcept { ++kept_reuses_; }
  bool fresh_per_request() const noexcept { return fresh_per_request_; }

  // Connections serving a request, so that cancel_all() can close them.
  // A vector with each connection's place in it (PooledConn::active_slot): no node allocated and
  // freed per request, as a hash set did.
  void track(PooledConn* c) {
    c->active_slot = active_.size();
    active_.push_back(c);
  }
  void untrack(PooledConn* c) {
    PooledConn* last = active_.back();
    active_[c->active_slot] = last;
    last->active_slot = c->active_slot;
    active_.pop_back();
  }
  void cancel_active();  // marks every active connection cancelled and closes it
  void clear();          // closes every idle connection and every one waiting for the server's close

  std::size_t idle() const noexcept { return idle_.size(); }
  std::size_t closing() const noexcept { return closing_.size(); }

 private:
  // Closes the connections whose server has closed them, oldest first, and any left open too long.
  void sweep_closing(Nanos now_ns);

  StreamFactory factory_;
  StreamDecoder* decoder_;
  bool keep_text_;
  std::atomic<int>* idle_count_;
  Nanos trusted_idle_ns_;
  Nanos reply_close_window_ns_;
  std::vector<std::unique_ptr<PooledConn>> idle_;
  std::deque<std::unique_ptr<PooledConn>> closing_;  // served, waiting for the server's close
  std::vector<PooledConn*> active_;
  std::uint64_t reply_closes_ = 0, kept_reuses_ = 0;
  bool fresh_per_request_ = false;
};

}  // namespace sb
