// The dispatcher: the caller's thread owns the schedule (absolute deadlines t0 + offset_i) and the
// FIFO concurrency limit, hands requests to the least-loaded worker, and wakes on completions,
// on the next due send, on the progress tick, and on request_stop().
#include "exec/runner.hpp"

#include <fmt/format.h>
#include <sys/prctl.h>

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "exec/worker.hpp"
#include "net/rlimit.hpp"

namespace sb {
namespace {

constexpr Nanos kProgressEveryNs = 200'000'000;

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
  std::int64_t output_tokens = 0;
  std::mutex record_mu;  // serialises the record callback: workers call it, it need not be thread-safe
  const RecordCallback* on_record = nullptr;

  void finished(RequestRecord& rec);
  Worker& pick_worker();
  void cancel_unsent(StageOutput& out, std::size_t from, Nanos t0);
};

void Runner::Impl::finished(RequestRecord& rec) {
  {
    std::lock_guard<std::mutex> lk(record_mu);
    if (on_record != nullptr && *on_record) (*on_record)(rec);
  }
  {
    std::lock_guard<std::mutex> lk(mu);
    ++done;
    --in_flight;
    if (!rec.ok()) ++failed;
    output_tokens += rec.output_tokens;
  }
  cv.notify_one();
}

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

void Runner::Impl::cancel_unsent(StageOutput& out, std::size_t from, Nanos t0) {
  const Nanos now = now_ns() - t0;
  for (std::size_t i = from; i < out.records.size(); ++i) {
    RequestRecord& rec = out.records[i];
    rec.outcome = Outcome::cancelled;
    rec.error = "not sent: the run was stopped";
    rec.aborted = true;
    rec.was_sent = false;  // never handed to a connection: counts in no metric, only as not sent
    rec.sent_ns = rec.done_ns = now;
    std::lock_guard<std::mutex> lk(record_mu);
    if (on_record != nullptr && *on_record) (*on_record)(rec);
  }
}

Problems validate(const ClientOptions& opt) {
  Problems out;
  if (opt.path.empty() || opt.path.front() != '/')
    out.push_back({"path", fmt::format("must start with '/', got '{}'", opt.path)});
  if (!(opt.timeout_s > 0)) out.push_back({"timeout_s", fmt::format("must be > 0, got {}", opt.timeout_s)});
  if (!(opt.idle_timeout_s > 0))
    out.push_back({"idle_timeout_s", fmt::format("must be > 0, got {}", opt.idle_timeout_s)});
  if (opt.threads < 0) out.push_back({"threads", fmt::format("must be >= 0 (0: one per core), got {}", opt.threads)});
  if (opt.threads > kMaxClientThreads)
    out.push_back({"threads", fmt::format("must be <= {} (each is an OS thread with its own event loop), got {}",
                                          kMaxClientThreads, opt.threads)});
  if (!(opt.stop_grace_s >= 0))
    out.push_back({"stop_grace_s", fmt::format("must be >= 0, got {}", opt.stop_grace_s)});
  return out;
}

Runner::Runner(ClientOptions opt) : impl_(std::make_unique<Impl>(std::move(opt))) {
  int threads = impl_->opt.threads;
  if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  for (int i = 0; i < threads; ++i) {
    impl_->workers.push_back(std::make_unique<Worker>(
        impl_->opt, [impl = impl_.get()](RequestRecord& rec) { impl->finished(rec); }));
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

int Runner::connections_opened() const noexcept {
  int total = 0;
  for (const auto& w : impl_->workers) total += w->connections_opened();
  return total;
}

namespace {

void prepare_records(const StageInput& in, std::vector<RequestRecord>& records) {
  const std::size_t n = in.requests.size();
  if (in.bodies == nullptr || in.bodies->size() < n) {
    throw std::invalid_argument("StageInput: fewer bodies than requests");
  }
  records.assign(n, RequestRecord{});
  for (std::size_t i = 0; i < n; ++i) {
    const StageRequest& q = in.requests[i];
    RequestRecord& r = records[i];
    r.index = static_cast<std::uint32_t>(i);
    r.intended_ns = q.offset_ns;
    r.dataset_prompt_tokens = q.prompt_tokens;
    r.prompt_tokens = q.prompt_tokens;
    r.expected_output_tokens = q.expected_output_tokens;
  }
}

}  // namespace

// One stage's dispatch loop state; lives on the dispatcher (caller's) thread, under Impl::mu.
struct StageLoop {
  Runner::Impl& m;
  const StageInput& in;
  StageOutput& out;
  std::size_t n = 0, limit = 0, next = 0, sent = 0;  // sent: handed to a worker (next jumps to n on a stop)
  Nanos t0 = 0, next_progress = 0, grace_end = 0;
  bool stopping = false, cancelled_in_flight = false;

  Progress progress(Nanos now) const {
    return Progress{static_cast<int>(n), static_cast<int>(sent), static_cast<int>(m.done),
                    static_cast<int>(m.failed), m.output_tokens, now - t0};
  }
  void handle_stop(Nanos now) {
    if (!stopping && m.stop.load(std::memory_order_relaxed)) {
      stopping = true;
      grace_end = now + to_ns(m.opt.stop_grace_s);
      m.cancel_unsent(out, next, t0);
      m.done += n - next;  // finished, but neither sent nor failed
      next = n;
      out.aborted = true;
    }
    if (stopping && !cancelled_in_flight && now >= grace_end) {
      for (auto& w : m.workers) w->cancel_all();
      cancelled_in_flight = true;
    }
  }
  // Sends every request that is due while a slot is free (FIFO in schedule order).
  Nanos dispatch_due(Nanos now) {
    while (next < n && m.in_flight < limit && now >= t0 + in.requests[next].offset_ns) {
      ++m.in_flight;
      m.pick_worker().submit(Job{&out.records[next], &(*in.bodies)[next], in.requests[next].id, t0});
      ++next;
      ++sent;
      now = now_ns();
    }
    return now;
  }
  Nanos wake_time() const {
    Nanos wake = next_progress;
    if (next < n && m.in_flight < limit) wake = std::min(wake, t0 + in.requests[next].offset_ns);
    if (stopping && !cancelled_in_flight) wake = std::min(wake, grace_end);
    return wake;
  }
};

StageOutput Runner::run_stage(const StageInput& in, const RecordCallback& on_record,
                              const ProgressCallback& on_progress) {
  Impl& m = *impl_;
  StageOutput out;
  prepare_records(in, out.records);
  StageLoop loop{m, in, out};
  loop.n = out.records.size();
  loop.limit = in.max_concurrency ? static_cast<std::size_t>(std::max(1, *in.max_concurrency)) : loop.n;
  raise_nofile_limit(fds_needed_for(std::min(loop.limit, loop.n)));
  // Sleeps end within ~1 us of the deadline instead of the default 50 us timer slack.
  prctl(PR_SET_TIMERSLACK, 1000UL, 0UL, 0UL, 0UL);
  m.on_record = &on_record;
  m.done = m.failed = m.in_flight = 0;
  m.output_tokens = 0;

  loop.t0 = out.t0_ns = now_ns();
  loop.next_progress = loop.t0 + kProgressEveryNs;
  std::unique_lock<std::mutex> lk(m.mu);
  while (m.done < loop.n) {
    loop.handle_stop(now_ns());
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
  lk.unlock();
  for (const RequestRecord& r : out.records) out.end_ns = std::max(out.end_ns, r.done_ns);
  if (on_progress) on_progress(last);
  m.on_record = nullptr;
  return out;
}

}  // namespace sb
