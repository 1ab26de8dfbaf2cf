// The dispatcher: the caller's thread owns the schedule (absolute deadlines t0 + offset_i) and the
// FIFO concurrency limit, hands requests to the least-loaded worker, and wakes on the next due
// send, on the progress tick, on request_stop(), and on those completions it has to act on. A
// completion that frees a slot while the next request is already due starts that request on the
// finishing worker itself (a closed loop's every completion): on one core, waking the dispatcher
// and having it post the request back to the worker were two thread switches per request.
#include "exec/runner.hpp"

#include <fmt/format.h>
#include <sys/prctl.h>

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>

#include "exec/record_chunks.hpp"
#include "exec/worker.hpp"
#include "net/rlimit.hpp"

namespace sb {
namespace {

constexpr Nanos kProgressEveryNs = 200'000'000;
// An open-loop request is handed to its worker this long before it is due, and the worker's own
// timer sends it: one thread's wake-up between the due time and the send instead of two in a row
// (the dispatcher's, then the worker's), and with --dispatch-spin-us none (the worker spins through
// the rest). It covers the dispatcher's own wake-up tail. The slot counts as taken from then on,
// which changes no send time: requests go in schedule order, so no later one could have used it.
constexpr Nanos kHandOverLeadNs = 2'000'000;

Nanos to_ns(double s) { return static_cast<Nanos>(s * 1e9); }

std::chrono::steady_clock::time_point to_time_point(Nanos ns) {
  return std::chrono::steady_clock::time_point(std::chrono::nanoseconds(ns));
}

}  // namespace

struct Runner::Impl {
  explicit Impl(ClientOptions o) : opt(std::move(o)) {}

  ClientOptions opt;
  std::vector<std::unique_ptr<Worker>> workers;
  std::atomic<bool> stop{false};  // set under mu by request_stop(), so the dispatcher's wait sees it
  std::size_t next_worker = 0;

  std::mutex mu;  // guards the counters below; the dispatcher waits on cv
  std::condition_variable cv;
  std::size_t done = 0, failed = 0, in_flight = 0;
  std::size_t slot_limit = 0;  // the stage's concurrency limit
  Nanos free_since_ns = 0;     // since when a slot has been free (absolute): a due request could go then
  std::int64_t output_tokens = 0;
  std::mutex record_mu;  // serialises the record callback: workers call it, it need not be thread-safe
  const RecordCallback* on_record = nullptr;
  const PassCallback* on_pass_end = nullptr;  // under record_mu: a worker's call may come after the stage
  StageLoop* loop = nullptr;  // the running stage's dispatch state (under mu); null between stages

  void finished(RequestRecord& rec, std::size_t worker);
  void pass_ended();
  Worker& pick_worker();

  // The workers first: their threads call finished(), which takes mu and notifies cv, and members
  // are destroyed in reverse order of declaration, which would end mu and cv before the threads.
  ~Impl() { workers.clear(); }
};

Worker& Runner::Impl::pick_worker() {
  // A worker with an idle kept-alive connection first (no new socket), else the least loaded one;
  // the rotating start spreads ties (all idle at the start of a stage) round-robin.
  const std::size_t n = workers.size();
  const auto better = [](const Worker& a, const Worker& b) {
    const bool a_idle = a.idle_connections() > 0, b_idle = b.idle_connections() > 0;
    if (a_idle != b_idle) return a_idle;
    return a.in_flight() < b.in_flight();
  };
  std::size_t best = next_worker % n;
  for (std::size_t k = 1; k < n; ++k) {
    const std::size_t i = (next_worker + k) % n;
    if (better(*workers[i], *workers[best])) best = i;
  }
  next_worker = best + 1;
  return *workers[best];
}

std::string stage_request_id(const StageInput& in, std::size_t k) {
  const std::size_t size = in.requests.size();
  const std::string& base = in.requests[k % size].id;
  if (k < size || base.empty()) return base;
  return fmt::format("{}-c{}", base, k / size);
}

Runner::Runner(ClientOptions opt) : impl_(std::make_unique<Impl>(std::move(opt))) {
  const int threads = resolved_threads(impl_->opt);
  for (int i = 0; i < threads; ++i) {
    const auto w = static_cast<std::size_t>(i);
    impl_->workers.push_back(std::make_unique<Worker>(
        impl_->opt, [impl = impl_.get(), w](RequestRecord& rec) { impl->finished(rec, w); }));
    impl_->workers.back()->set_pass_done([impl = impl_.get()] { impl->pass_ended(); });
  }
}

Runner::~Runner() = default;

void Runner::request_stop() noexcept {
  {
    std::lock_guard<std::mutex> lk(impl_->mu);
    impl_->stop.store(true, std::memory_order_relaxed);
  }
  impl_->cv.notify_all();
}
bool Runner::stop_requested() const noexcept { return impl_->stop.load(std::memory_order_relaxed); }

int Runner::threads() const noexcept { return static_cast<int>(impl_->workers.size()); }

int Runner::connections_opened() const noexcept {
  int total = 0;
  for (const auto& w : impl_->workers) total += w->connections_opened();
  return total;
}

namespace {

void check_bodies(const StageInput& in) {
  if (in.requests.empty()) return;
  const std::size_t n = in.requests.size();
  bool ok = in.bodies != nullptr;
  for (std::size_t i = 0; ok && i < n; ++i) {
    const std::int64_t b = in.requests[i].body_index;
    ok = b < 0 ? i < in.bodies->size() : static_cast<std::size_t>(b) < in.bodies->size();
  }
  if (!ok) throw std::invalid_argument("StageInput: a request without a body");
}

RequestRecord make_record(const StageInput& in, std::size_t k) {
  const StageRequest& q = in.requests[k % in.requests.size()];
  RequestRecord r;
  r.index = static_cast<std::uint32_t>(k);
  r.intended_ns = q.offset_ns;
  r.dataset_prompt_tokens = q.prompt_tokens;
  r.prompt_tokens = q.prompt_tokens;
  r.expected_output_tokens = q.expected_output_tokens;
  return r;
}

const std::string& body_of(const StageInput& in, std::size_t k) {
  const std::size_t i = k % in.requests.size();
  const std::int64_t b = in.requests[i].body_index;
  return (*in.bodies)[b < 0 ? i : static_cast<std::size_t>(b)];
}

}  // namespace

// One stage's dispatch loop state; lives on the dispatcher (caller's) thread, under Impl::mu.
// Records never move while the stage runs: workers hold pointers to them (exec/record_chunks.hpp).
struct StageLoop {
  Runner::Impl& m;
  const StageInput& in;
  RecordChunks records;
  std::size_t n = 0, limit = 0, next = 0, sent = 0;  // sent: handed to a worker (next jumps to n on a stop)
  Nanos t0 = 0, next_progress = 0, grace_end = 0, deadline = 0;  // deadline 0: none
  bool stopping = false, cancelled_in_flight = false, out_of_time = false, aborted = false;

  Progress progress(Nanos now) const {
    const std::size_t total = n == kUntilDeadline ? sent : n;
    return Progress{static_cast<int>(total), static_cast<int>(sent), static_cast<int>(m.done),
                    static_cast<int>(m.failed), m.output_tokens, now - t0};
  }
  // Requests not sent by the stop are reported cancelled, with was_sent = false: they count as not
  // sent, never as failed. A stage issuing until its deadline has no planned rest to report.
  void cancel_unsent(std::size_t end) {
    const Nanos now = now_ns() - t0;
    for (std::size_t k = next; k < end; ++k) {
      RequestRecord& rec = records.emplace_back(make_record(in, k));
      rec.mark_not_sent(now);
      std::lock_guard<std::mutex> lk(m.record_mu);
      if (m.on_record != nullptr && *m.on_record) (*m.on_record)(rec);
    }
  }
  void handle_stop(Nanos now) {
    if (!stopping && m.stop.load(std::memory_order_relaxed)) {
      stopping = true;
      grace_end = now + to_ns(m.opt.stop_grace_s);
      const std::size_t end = n == kUntilDeadline || out_of_time ? next : n;
      cancel_unsent(end);
      m.done += end - next;  // finished, but neither sent nor failed
      n = end;
      next = n;
      aborted = true;
    }
    if (stopping && !cancelled_in_flight && now >= grace_end) {
      for (auto& w : m.workers) w->cancel_all();
      cancelled_in_flight = true;
    }
  }
  // The duration bound: what was not sent by the deadline is not part of the stage.
  void handle_deadline(Nanos now) {
    if (deadline == 0 || out_of_time || now < deadline) return;
    out_of_time = true;
    n = next;
  }
  Nanos offset_of(std::size_t k) const { return in.requests[k % in.requests.size()].offset_ns; }
  // The next request may go at `now`: one is left, a slot is free, it is due, the duration bound has
  // not passed, and no stop was asked for (the dispatcher's handle_stop runs before its own sends).
  // A request is handed to its worker kHandOverLeadNs before it is due, and the worker sends it on
  // time (Job::due_ns). One due at or after the duration bound is not part of the stage.
  Nanos due_of(std::size_t k) const { return t0 + offset_of(k); }
  bool next_may_go(Nanos now) const {
    return next < n && m.in_flight < limit && now >= due_of(next) - kHandOverLeadNs &&
           (deadline == 0 || std::max(now, due_of(next)) < deadline) && !m.stop.load(std::memory_order_relaxed);
  }
  // Takes the next request (next_may_go was true), counted in flight: its record and job.
  Job take_next() {
    ++m.in_flight;
    RequestRecord& rec = records.emplace_back(make_record(in, next));
    // It could have gone when it was due, or when a slot freed after that: the rest is the client's lag.
    if (m.free_since_ns > t0 + offset_of(next)) rec.slot_free_ns = m.free_since_ns - t0;
    const std::size_t size = in.requests.size();
    // A cycled request's id is the dataset's with "-c<cycle>" (stage_request_id); the worker writes it.
    const std::string_view id = in.requests[next % size].id;
    const auto cycle = static_cast<std::uint32_t>(id.empty() ? 0 : next / size);
    const Job job{&rec, &body_of(in, next), id, cycle, t0, due_of(next)};
    ++next;
    ++sent;
    return job;
  }
  // Sends every request that is due while a slot is free (FIFO in schedule order).
  Nanos dispatch_due(Nanos now) {
    while (next_may_go(now)) {
      m.pick_worker().submit(take_next());
      now = now_ns();
    }
    return now;
  }
  Nanos wake_time() const {
    Nanos wake = next_progress;
    // A request due at or after the duration bound waits for the bound (handle_deadline).
    if (next < n && m.in_flight < limit && (deadline == 0 || due_of(next) < deadline))
      wake = std::min(wake, due_of(next) - kHandOverLeadNs);
    if (deadline != 0 && !out_of_time) wake = std::min(wake, deadline);
    if (stopping && !cancelled_in_flight) wake = std::min(wake, grace_end);
    return wake;
  }
};

// On worker `w`'s thread, once `rec` is final. The finishing worker sends the next request itself
// when the slot it freed lets a due one go (it has the connection it just used idle, so no socket
// beyond the limit opens). The dispatcher is woken only when it has something to do: the stage's
// last request finished, or a slot freed that it waits for and nobody took.
void Runner::Impl::finished(RequestRecord& rec, std::size_t w) {
  {
    std::lock_guard<std::mutex> lk(record_mu);
    if (on_record != nullptr && *on_record) (*on_record)(rec);
  }
  std::optional<Job> job;
  bool wake = true;
  {
    std::lock_guard<std::mutex> lk(mu);
    const bool was_full = in_flight == slot_limit;
    ++done;
    if (was_full) free_since_ns = now_ns();
    --in_flight;
    if (!rec.ok() && rec.was_sent) ++failed;  // one stopped before it went is neither
    output_tokens += rec.output_tokens;
    if (loop != nullptr) {
      if (loop->next_may_go(now_ns())) job = loop->take_next();
      wake = done >= loop->n || (was_full && loop->next < loop->n && !job);
    }
    // Handed over under the lock, as the dispatcher does: a worker numbers its requests as they are
    // submitted and sends them in that order (Worker::submit), which must be the order they were
    // taken in. Its coroutine starts on this thread after this one returns (co_spawn posts).
    if (job) workers[w]->submit(*job);
    // Under the lock: once it is released the dispatcher may see the stage done and return, and
    // the runner (and cv with it) may be gone before a notify after the lock.
    if (wake) cv.notify_one();
  }
}

void Runner::Impl::pass_ended() {
  std::lock_guard<std::mutex> lk(record_mu);
  if (on_pass_end != nullptr && *on_pass_end) (*on_pass_end)();
}

namespace {

// The client's threads over a stage: deltas of their kernel times (exec/thread_times.hpp).
struct ThreadSnapshot {
  std::vector<ThreadTimes> workers;
  ThreadTimes dispatcher;

  explicit ThreadSnapshot(const std::vector<std::unique_ptr<Worker>>& ws) : dispatcher(thread_times(current_thread_id())) {
    for (const auto& w : ws) workers.push_back(w->times());
  }
  ClientThreadTimes since(const ThreadSnapshot& before, Nanos wall_ns) const {
    ClientThreadTimes t;
    t.threads = static_cast<int>(workers.size());
    t.wall_ns = wall_ns;
    for (std::size_t i = 0; i < workers.size(); ++i) {
      const Nanos cpu = workers[i].cpu_ns - before.workers[i].cpu_ns;
      t.worker_cpu_ns += cpu;
      t.busiest_worker_ns = std::max(t.busiest_worker_ns, cpu + workers[i].wait_ns - before.workers[i].wait_ns);
    }
    t.dispatcher_cpu_ns = dispatcher.cpu_ns - before.dispatcher.cpu_ns;
    return t;
  }
};

}  // namespace

StageOutput Runner::run_stage(const StageInput& in, const RecordCallback& on_record,
                              const ProgressCallback& on_progress, const PassCallback& on_pass_end) {
  Impl& m = *impl_;
  StageOutput out;
  check_bodies(in);
  StageLoop loop{m, in, {}};
  loop.n = in.requests.empty() ? 0 : std::max(in.issue_count, in.requests.size());
  if (in.issue_count == kUntilDeadline && in.issue_for_ns <= 0)
    throw std::invalid_argument("StageInput: issuing until a deadline needs issue_for_ns");
  const std::size_t slots_needed = std::min(loop.n, in.max_concurrency ? static_cast<std::size_t>(std::max(1, *in.max_concurrency)) : loop.n);
  loop.limit = in.max_concurrency ? static_cast<std::size_t>(std::max(1, *in.max_concurrency)) : loop.n;
  raise_nofile_limit(fds_needed_for(slots_needed));
  // Sleeps end within ~1 us of the deadline instead of the default 50 us timer slack.
  prctl(PR_SET_TIMERSLACK, 1000UL, 0UL, 0UL, 0UL);
  m.on_record = &on_record;
  {
    std::lock_guard<std::mutex> rk(m.record_mu);
    m.on_pass_end = &on_pass_end;
  }
  m.done = m.failed = m.in_flight = 0;
  m.output_tokens = 0;
  m.slot_limit = loop.limit;
  const ThreadSnapshot times_before(m.workers);

  loop.t0 = out.t0_ns = now_ns();
  m.free_since_ns = loop.t0;
  if (in.issue_for_ns > 0) loop.deadline = loop.t0 + in.issue_for_ns;
  loop.next_progress = loop.t0 + kProgressEveryNs;
  std::unique_lock<std::mutex> lk(m.mu);
  m.loop = &loop;
  while (m.done < loop.n) {
    loop.handle_stop(now_ns());
    loop.handle_deadline(now_ns());
    const Nanos now = loop.dispatch_due(now_ns());
    if (now >= loop.next_progress) {
      const Progress p = loop.progress(now);
      lk.unlock();
      if (on_progress) on_progress(p);
      lk.lock();
      loop.next_progress += kProgressEveryNs * (1 + (now - loop.next_progress) / kProgressEveryNs);
    }
    if (m.done >= loop.n) break;
    const Nanos wake = loop.wake_time();
    if (wake > now) m.cv.wait_until(lk, to_time_point(wake));
  }
  const Progress last = loop.progress(now_ns());
  m.loop = nullptr;
  lk.unlock();
  out.aborted = loop.aborted;
  if (loop.out_of_time) out.issue_end_ns = loop.deadline - loop.t0;
  // Dispatch order is index order, and the cancelled rest follows it: records[i].index == i.
  loop.records.drain_into(out.records);
  for (const RequestRecord& r : out.records) out.end_ns = std::max(out.end_ns, r.done_ns);
  out.client_times = ThreadSnapshot(m.workers).since(times_before, out.end_ns);
  if (on_progress) on_progress(last);
  m.on_record = nullptr;
  {
    std::lock_guard<std::mutex> rk(m.record_mu);
    m.on_pass_end = nullptr;
  }
  return out;
}

}  // namespace sb
