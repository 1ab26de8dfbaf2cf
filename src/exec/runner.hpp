#pragma once
// Runs one stage: sends each request at its intended time (t0 + offset_i) when a concurrency slot is
// free, over keep-alive connections owned by worker threads (one io_context per thread), and stamps
// every byte arrival into a RequestRecord. The only Asio/Beast code of the client lives behind this.
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/clock.hpp"
#include "core/problem.hpp"
#include "metrics/client_use.hpp"
#include "metrics/request_record.hpp"
#include "net/endpoint.hpp"
#include "net/http_call.hpp"
#include "protocol/api.hpp"

namespace sb {

struct ClientOptions {
  Endpoint endpoint;
  std::string path = "/v1/completions";   // request path after endpoint.base_path
  Api api = Api::completions;
  HeaderList headers;                     // extra headers, Authorization included (never logged)
  double timeout_s = 21600;               // whole-request limit (vLLM: 6 h)
  double idle_timeout_s = 300;            // max silence between two reads of one response
  int threads = 0;                        // worker threads; 0 = hardware concurrency
  bool keep_text = false;                 // keep generated text in records (--save-detailed / re-tokenize)
  double stop_grace_s = 3.0;              // after request_stop(): time in-flight requests get to finish
  // Stamp each read with the kernel's receive time of its bytes (plain TCP, SO_TIMESTAMPNS) rather
  // than the time this client's thread got to it: a busy client thread then adds no latency.
  // false = the read time, as vLLM's client measures (--arrival-time read).
  bool kernel_arrival_times = true;
  // An open-loop request's worker wakes this much before it is due and spins the rest, so a late
  // timer wake-up is not dispatch lag (--dispatch-spin-us); costs up to that much CPU a request.
  Nanos dispatch_spin_ns = 0;
  // A kept-alive connection idle for less than this, which the server kept open across a reused
  // request before, is sent on without first looking at its socket for a close (a recv per request;
  // why that is safe: exec/conn_pool.hpp). 0: always look. A twentieth of the shortest idle
  // timeout of a common server (gunicorn's 2 s); a busy worker's pass over its ready connections
  // alone can take a millisecond, so a much shorter one would still look at most of them.
  Nanos trusted_idle_ns = 100'000'000;
};

// One request of a stage; its body is the stage's bodies[i] for requests[i].
struct StageRequest {
  std::string id;                   // sent as x-request-id; "" = none
  int prompt_tokens = -1;           // the dataset's count, -1 if unknown
  int expected_output_tokens = 0;   // max_tokens
  Nanos offset_ns = 0;              // intended send offset from t0 (all 0: closed loop)
  std::int64_t body_index = -1;     // its body is bodies[body_index]; -1 = bodies[its own index]
};

// More worker threads than this only cost memory and context switches (one event loop each serves
// thousands of connections); 100000 would fail to start as an internal error.
inline constexpr int kMaxClientThreads = 1024;
// A millisecond covers a timer's wake-up on a busy VM (p99 0.2 ms, 2026-12-04); more only burns CPU.
inline constexpr Nanos kMaxDispatchSpinNs = 1'000'000;

// The worker threads a Runner starts: opt.threads, or one per usable CPU (core/usable_cpus.hpp) when it is 0.
int resolved_threads(const ClientOptions& opt) noexcept;

// Every problem, by field: timeouts > 0, 0 <= threads <= kMaxClientThreads, stop_grace_s >= 0, path starting with '/'.
Problems validate(const ClientOptions& opt);

struct StageInput {
  std::size_t stage_index = 0;
  const std::vector<std::string>* bodies = nullptr;  // prebuilt JSON bodies, at least one per request
  std::vector<StageRequest> requests;                 // in schedule order (offsets non-decreasing)
  std::optional<int> max_concurrency;                 // slots; nullopt = unlimited
  // Duration bound (--stage-seconds): no request is sent after t0 + issue_for_ns; those not sent by
  // then are not part of the stage (no record). 0 = none.
  Nanos issue_for_ns = 0;
  // More requests than listed (closed loop, offsets 0): request k reuses requests[k % size], with
  // the id stage_request_id() gives it. 0 = requests.size(); kUntilDeadline = until issue_for_ns.
  std::size_t issue_count = 0;
};

inline constexpr std::size_t kUntilDeadline = static_cast<std::size_t>(-1);

// Request k's id: requests[k % size].id, suffixed "-c<round>" from its second round on, so every
// request of a cycled stage keeps a unique id ("" stays "").
std::string stage_request_id(const StageInput& in, std::size_t k);

struct Progress {
  int total = 0, sent = 0, done = 0, failed = 0;
  std::int64_t output_tokens = 0;
  Nanos elapsed_ns = 0;
};

// Called from a worker thread as each request finishes, in completion order. Must not block long.
using RecordCallback = std::function<void(const RequestRecord&)>;
// Called from the dispatcher thread about every 200 ms.
using ProgressCallback = std::function<void(const Progress&)>;
// Called from a worker thread after a pass of its event loop in which requests finished, once they
// all went through the record callback, before the worker next waits for the network (serialised
// with the record callback): a record callback that buffers (report/jsonl_sink) writes here.
using PassCallback = std::function<void()>;

struct StageOutput {
  std::vector<RequestRecord> records;  // indexed by request index (dataset order), the sent ones of a bounded stage
  Nanos t0_ns = 0;                     // stage start (steady clock); record times are relative to it
  Nanos end_ns = 0;                    // last completion (relative to t0)
  Nanos issue_end_ns = -1;             // relative to t0: when the duration bound stopped issuing; -1 = it did not
  bool aborted = false;
  ClientThreadTimes client_times;      // the client's threads during the stage
};

struct StageLoop;

class Runner {
 public:
  explicit Runner(ClientOptions opt);
  ~Runner();
  Runner(const Runner&) = delete;
  Runner& operator=(const Runner&) = delete;

  // Runs every request of the stage; returns when all have an outcome. Thread: caller's.
  StageOutput run_stage(const StageInput& in, const RecordCallback& on_record,
                        const ProgressCallback& on_progress, const PassCallback& on_pass_end = {});

  // Thread-safe (any thread, e.g. a std::stop_callback; not from a signal handler): stop
  // dispatching and wake the dispatcher; in-flight requests get `stop_grace_s` to finish, then are
  // cancelled (Outcome::cancelled, aborted = true). Un-sent requests are reported cancelled too,
  // with was_sent = false: they count as not sent, never as failed (Progress::failed neither).
  // A stopped runner stays stopped.
  void request_stop() noexcept;
  bool stop_requested() const noexcept;

  // TCP connections opened so far by all workers (keep-alive reuse shows as opened < requests).
  int connections_opened() const noexcept;
  int threads() const noexcept;  // worker threads running

 private:
  struct Impl;
  friend struct StageLoop;  // runner.cpp's dispatch loop
  std::unique_ptr<Impl> impl_;
};

}  // namespace sb
