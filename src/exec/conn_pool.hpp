#pragma once
// The keep-alive connections of one worker: idle ones (reused last-in first-out: the most recently
// used socket is the least likely to have been closed by the server) and the ones serving a request
// (Worker::cancel_all closes those). Used only on the worker's thread, except the idle count, which
// the dispatcher reads to prefer a worker that needs no new socket.
#include <atomic>
#include <functional>
#include <memory>
#include <unordered_set>
#include <vector>

#include "exec/exchange.hpp"

namespace sb {

// Makes a new, unconnected connection (net::Connection in a run, an in-memory fake in tests).
using StreamFactory = std::function<std::unique_ptr<ByteStream>()>;

class ConnectionPool {
 public:
  // `idle_count` is the worker's public count of idle connections (submit() reserves from it).
  ConnectionPool(StreamFactory factory, StreamDecoder& decoder, bool keep_text, std::atomic<int>& idle_count)
      : factory_(std::move(factory)), decoder_(&decoder), keep_text_(keep_text), idle_count_(&idle_count) {}
  ~ConnectionPool();

  // An idle connection that is still usable (stale ones are dropped), else a new one. `reserved`:
  // submit() already took one off the idle count for this request.
  std::unique_ptr<PooledConn> acquire(bool reserved);
  // A new connection, never an idle one (a retry: another idle socket may be as stale as the first).
  std::unique_ptr<PooledConn> fresh();
  // After a request: back to the idle list when `keep`, else closed.
  void release(std::unique_ptr<PooledConn> c, bool keep);

  // Connections serving a request, so that cancel_all() can close them.
  void track(PooledConn* c) { active_.insert(c); }
  void untrack(PooledConn* c) { active_.erase(c); }
  void cancel_active();  // marks every active connection cancelled and closes it
  void clear();          // closes every idle connection

  std::size_t idle() const noexcept { return idle_.size(); }

 private:
  StreamFactory factory_;
  StreamDecoder* decoder_;
  bool keep_text_;
  std::atomic<int>* idle_count_;
  std::vector<std::unique_ptr<PooledConn>> idle_;
  std::unordered_set<PooledConn*> active_;
};

}  // namespace sb
