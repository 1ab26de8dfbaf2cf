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
#include "exec/client_options.hpp"
#include "metrics/client_use.hpp"
#include "metrics/request_record.hpp"

namespace sb {

// One request of a stage; its body is the stage's bodies[i] for requests[i].
struct StageRequest {
  std::string id;                   // sent as x-request-id; "" = none
  int prompt_tokens = -1;           // the dataset's count, -1 if unknown
  int expected_output_tokens = 0;   // max_tokens
  Nanos offset_ns = 0;              // intended send offset from t0 (all 0: closed loop)
  std::int64_t body_index = -1;     // its body is bodies[body_index]; -1 = bodies[its own index]
};

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
