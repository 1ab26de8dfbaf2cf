#pragma once
// One client worker thread: its own single-threaded io_context, its keep-alive ConnectionPool
// (conn_pool.hpp) and one coroutine per request, which runs the HTTP exchange (exchange.hpp) and
// retries once on a fresh connection when a kept-alive one turns out stale. Requests are handed over
// with submit() from the dispatcher; each finished request is reported through the completion
// callback on the worker thread. No Boost type in this header: Asio stays inside the .cpp files.
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "core/clock.hpp"
#include "exec/thread_times.hpp"
#include "metrics/request_record.hpp"

namespace sb {

struct ClientOptions;
class ByteStream;

struct Job {
  RequestRecord* record = nullptr;      // owned by the stage; index/intended/expected are preset
  const std::string* body = nullptr;    // prebuilt JSON body
  std::string_view request_id;          // x-request-id, empty = none
  std::uint32_t request_cycle = 0;      // > 0: the dataset's k-th reuse; the id gets "-c<k>"
  Nanos t0_ns = 0;                      // stage start: record times are relative to it
  // When to send it (steady clock): an open-loop request is handed over before it is due and the
  // worker's own timer sends it (runner.cpp, kHandOverLeadNs). 0 or a past time: at once.
  Nanos due_ns = 0;
  bool reserved_idle = false;           // set by submit(): an idle connection is set aside for it
  std::uint64_t seq = 0;                // set by submit(): the worker sends its requests in this order
};

// Called on the worker thread once the record's outcome is final.
using JobDone = std::function<void(RequestRecord&)>;
// Called on the worker thread after a pass of its event loop in which requests finished (each
// reported through JobDone first), before the loop next waits for the network: what JobDone
// gathered can be written once per pass instead of once per request.
using PassDone = std::function<void()>;

class Worker {
 public:
  Worker(const ClientOptions& opt, JobDone on_done);
  // Connections come from `make_stream` instead of sockets to opt.endpoint (the tests' in-memory
  // fake). Called on the worker thread.
  Worker(const ClientOptions& opt, JobDone on_done, std::function<std::unique_ptr<ByteStream>()> make_stream);
  ~Worker();  // closes connections and joins the thread
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  // Before the first submit(); none by default.
  void set_pass_done(PassDone f);
  // Thread-safe. Requests are sent in the order they are submitted (each once due), so callers
  // that must keep an order submit under one lock.
  void submit(Job job);
  // Thread-safe: closes every in-flight connection (its request ends `cancelled`, aborted); a
  // request not written yet (waiting for its due time, or submitted later) ends `cancelled` and
  // not sent (was_sent false).
  void cancel_all();
  int in_flight() const noexcept { return in_flight_.load(std::memory_order_relaxed); }
  int connections_opened() const noexcept { return opened_.load(std::memory_order_relaxed); }
  // Kept-alive connections waiting for a request: the dispatcher prefers such a worker so the
  // number of sockets never exceeds the concurrency limit (as vLLM's pool sized to it).
  int idle_connections() const noexcept { return idle_.load(std::memory_order_relaxed); }
  // The worker thread's CPU so far (exec/thread_times.hpp): a stage's share is the difference.
  ThreadTimes times() const noexcept { return thread_times(tid_.load(std::memory_order_acquire)); }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::atomic<int> in_flight_{0};
  std::atomic<int> opened_{0};
  std::atomic<int> idle_{0};
  std::atomic<int> tid_{0};  // the thread's kernel id, set as it starts
  std::atomic<std::uint64_t> submitted_{0};  // the next Job::seq
};

}  // namespace sb
