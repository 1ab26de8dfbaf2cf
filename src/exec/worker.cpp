// The worker thread of the client's hot path: one io_context and one coroutine per request. The
// coroutine takes a connection from the pool, connects it if new, runs the exchange and gives the
// connection back; what the network did is classified into the record's outcome, never thrown away.
#include <utility>

#include "exec/worker.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <algorithm>
#include <map>
#include <optional>
#include <thread>
#include <vector>

#include "exec/conn_pool.hpp"
#include "exec/exchange.hpp"
#include "exec/resend_rule.hpp"
#include "exec/runner.hpp"
#include "net/connection.hpp"

namespace sb {
namespace {

namespace asio = boost::asio;
using Clock = std::chrono::steady_clock;

Clock::duration to_duration(double s) {
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
}

}  // namespace

struct Worker::Impl {
  Impl(Worker& owner, const ClientOptions& opt, JobDone on_done, StreamFactory make_stream);

  asio::io_context ioc{1};
  asio::executor_work_guard<asio::io_context::executor_type> guard{ioc.get_executor()};
  Worker& owner;
  const ClientOptions& opt;
  JobDone on_done;
  PassDone pass_done;
  bool pass_done_posted = false;  // a call of pass_done is queued behind this pass's handlers
  std::optional<Dialer> dialer;  // set unless the streams come from a test's factory
  StreamDecoder decoder;
  std::string head_prefix;  // request line and fixed headers, built once
  bool cancelling = false;
  ExchangeContext ctx{opt, cancelling};
  std::optional<ConnectionPool> pool;
  std::vector<std::string> secrets;  // header values that must never reach an output (API keys)
  // The send order (Job::seq): the next to go, and those due already but waiting for it. A request
  // whose coroutine started late (a thread starved for longer than the hand-over lead) would
  // otherwise go before earlier ones still in the timer queue.
  std::uint64_t next_to_send = 0;
  std::map<std::uint64_t, asio::steady_timer*> parked;
  std::thread thread;

  asio::awaitable<void> serve(Job job);
  asio::awaitable<void> wait_until_due(Nanos due_ns);
  asio::awaitable<void> wait_for_turn(std::uint64_t seq);
  void take_turn();
  asio::awaitable<void> run_job(const Job& job);
  asio::awaitable<Attempt> attempt(PooledConn& c, const Job& job, Deadline deadline);
  asio::awaitable<bool> connect(PooledConn& c, Deadline deadline);
  void build_head(PooledConn& c, const Job& job) const;
};

Worker::Impl::Impl(Worker& w, const ClientOptions& o, JobDone done, StreamFactory make_stream)
    : owner(w), opt(o), on_done(std::move(done)), decoder(o.api) {
  if (!make_stream) {
    dialer.emplace(ioc, opt.endpoint);
    dialer->use_kernel_arrival_times(opt.kernel_arrival_times);
    make_stream = [this]() -> std::unique_ptr<ByteStream> { return dialer->open(); };
  }
  pool.emplace(std::move(make_stream), decoder, opt.keep_text, owner.idle_, opt.trusted_idle_ns,
               opt.reply_close_window_ns);
  head_prefix = "POST " + opt.endpoint.base_path + opt.path + " HTTP/1.1\r\nHost: " +
                opt.endpoint.authority() + "\r\nUser-Agent: servebench/" SB_VERSION
                "\r\nContent-Type: application/json\r\nAccept: */*\r\n";
  for (const auto& [k, v] : opt.headers) head_prefix += k + ": " + v + "\r\n";
  secrets = secret_header_values(opt.headers);
}

void Worker::Impl::build_head(PooledConn& c, const Job& job) const {
  c.head.assign(head_prefix);
  if (!job.request_id.empty()) {
    c.head.append("x-request-id: ").append(job.request_id);
    if (job.request_cycle > 0) c.head.append("-c").append(std::to_string(job.request_cycle));
    c.head.append("\r\n");
  }
  c.head.append("Content-Length: ").append(std::to_string(job.body->size())).append("\r\n\r\n");
}

// Every request gets a final outcome and exactly one completion, even if something throws.
asio::awaitable<void> Worker::Impl::serve(Job job) {
  RequestRecord& rec = *job.record;
  std::string failure;
  try {
    // Each only when it has to wait (a coroutine frame each otherwise, on every closed-loop request).
    if (job.due_ns > now_ns()) co_await wait_until_due(job.due_ns);
    if (job.seq != next_to_send) co_await wait_for_turn(job.seq);
    take_turn();  // every job passes here exactly once: the next one may go
    // Stopped before it went (handed over ahead of its due time, or after cancel_all): no byte of
    // it left, so it is not sent, as the dispatcher's requests not yet taken are not.
    if (cancelling) rec.mark_not_sent(now_ns() - job.t0_ns);
    else co_await run_job(job);
  } catch (const std::exception& e) {
    failure = e.what();
  }
  if (!failure.empty()) {
    rec.outcome = Outcome::connect_error;
    rec.error = "client failure: " + failure;
  }
  if (rec.outcome == Outcome::cancelled) rec.aborted = true;
  if (!rec.error.empty()) scrub_secrets(rec.error, secrets);  // servers echo keys in error bodies
  // A stream that stopped well short of max_tokens (an EOS, a failure) gives back the room it did
  // not use: a 32,000-token max_tokens would otherwise keep 128 KB for a 300-token answer.
  if (rec.token_ns.heap_bytes() > 2 * sizeof(std::uint32_t) * rec.token_ns.size() + 256) rec.token_ns.shrink_to_fit();
  rec.done_ns = now_ns() - job.t0_ns;
  owner.in_flight_.fetch_sub(1, std::memory_order_relaxed);
  on_done(rec);
  // Posted, it runs after the handlers already queued (the rest of this pass) and the event loop's
  // non-blocking poll, before it blocks in the next one.
  if (pass_done && !pass_done_posted) {
    pass_done_posted = true;
    asio::post(ioc, [this] {
      pass_done_posted = false;
      pass_done();
    });
  }
}

// This thread's own timer: its wake-up is the only one between the due time and the send. The last
// opt.dispatch_spin_ns are spun through (nothing else runs on this thread meanwhile), so a timer
// that fires late by less than that adds nothing.
asio::awaitable<void> Worker::Impl::wait_until_due(Nanos due_ns) {
  const Nanos wake_ns = due_ns - opt.dispatch_spin_ns;
  if (wake_ns > now_ns()) {
    asio::steady_timer timer(ioc, Clock::time_point(std::chrono::nanoseconds(wake_ns)));
    boost::system::error_code ec;  // cancelled only when the worker stops
    co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
  }
  while (now_ns() < due_ns) {
  }
}

// Waits (parked on a timer that never expires) until every request submitted before this one has
// taken its turn. take_turn() then lets the next one go: cancelling its timer resumes it after this
// coroutine suspends, so after this request's send time is stamped.
asio::awaitable<void> Worker::Impl::wait_for_turn(std::uint64_t seq) {
  asio::steady_timer turn(ioc, Clock::time_point::max());
  parked.emplace(seq, &turn);
  boost::system::error_code ec;
  while (seq != next_to_send) co_await turn.async_wait(asio::redirect_error(asio::use_awaitable, ec));
  parked.erase(seq);
}

void Worker::Impl::take_turn() {
  ++next_to_send;
  if (auto it = parked.find(next_to_send); it != parked.end()) it->second->cancel();
}

asio::awaitable<void> Worker::Impl::run_job(const Job& job) {
  RequestRecord& rec = *job.record;
  // One event per token, and room for a closing event (a finish_reason or usage chunk with
  // choices): no allocation per token event, 4 bytes a token kept for the stage (issue 13).
  rec.token_ns.reserve(static_cast<std::size_t>(std::max(0, rec.expected_output_tokens)) + 2);
  const Nanos sent_at_ns = now_ns();
  rec.sent_ns = sent_at_ns - job.t0_ns;  // vLLM's st: connection setup, if any, counts in TTFT
  rec.retries = 0;
  const Deadline deadline = Clock::now() + to_duration(opt.timeout_s);
  for (int tries = 0;; ++tries) {
    // The retry takes a new connection: another idle one may have been closed by the server too.
    auto conn = tries == 0 ? pool->acquire(job.reserved_idle, sent_at_ns) : pool->fresh();
    const bool reused = conn->used;
    conn->first_reuse = reused && tries == 0;
    conn->write_at_ns = sent_at_ns;  // a reused connection connects nothing: the write follows at once
    conn->sink.begin(rec);
    pool->track(conn.get());
    const Attempt a = co_await attempt(*conn, job, deadline);
    pool->untrack(conn.get());
    // A kept-alive connection the server closed (while idle, or as the request came) fails before
    // the server read it (exec/resend_rule.hpp judged that): not the request's fault, send it again.
    if (a == Attempt::retry && !cancelling) {
      if (closed_right_after_reply(conn->write_at_ns - conn->idle_since_ns, opt.reply_close_window_ns))
        pool->saw_reply_close();
      pool->release(std::move(conn), false, 0);
      ++rec.retries;
      continue;
    }
    if (a == Attempt::retry) {
      conn->sink.on_transport_failure(Outcome::connect_error, rec.error.empty()
                                                                  ? "connection closed before any response byte"
                                                                  : rec.error);
    }
    if (a == Attempt::keep) {
      // The server's idle limit, when its reply said one: the pool keeps clear of it.
      const int limit_s = conn->reader.keep_alive_timeout_s();
      conn->server_idle_limit_ns = limit_s > 0 ? Nanos{limit_s} * 1'000'000'000 : 0;
      if (reused) {
        conn->kept_before = true;
        pool->saw_kept_reuse();
      }
    }
    pool->release(std::move(conn), a == Attempt::keep, now_ns());
    break;
  }
}

asio::awaitable<Attempt> Worker::Impl::attempt(PooledConn& c, const Job& job, Deadline deadline) {
  if (cancelling) {
    c.sink.on_transport_failure(Outcome::cancelled, "cancelled: the run was stopped");
    co_return Attempt::close;
  }
  // co_await only as a whole statement: GCC 12 miscompiles it inside && and ?: expressions.
  if (!c.connected) {
    const bool connected = co_await connect(c, deadline);
    if (!connected) co_return Attempt::close;
  }
  build_head(c, job);
  c.used = true;
  const Attempt result = co_await http_exchange(c, job, deadline, ctx);
  co_return result;
}

// Connect failures in the load client's words (the cold path words them in net/http_call.cpp).
asio::awaitable<bool> Worker::Impl::connect(PooledConn& c, Deadline deadline) {
  const Endpoint& ep = opt.endpoint;
  const std::string where = ep.host + ":" + std::to_string(ep.port);
  ConnectError err;
  co_await c.stream->connect(operation_deadline(opt, deadline), err);
  if (err.tcp_connected()) owner.opened_.fetch_add(1, std::memory_order_relaxed);
  if (err.step == ConnectError::Step::resolve) {
    c.sink.on_transport_failure(Outcome::connect_error, "cannot resolve " + ep.host + ": " + err.ec.message());
    co_return false;
  }
  if (err.step == ConnectError::Step::tls && !c.cancelled) {
    c.sink.on_transport_failure(Outcome::connect_error, "TLS handshake with " + where + " failed: " + err.tls_detail);
    co_return false;
  }
  if (c.cancelled) {
    c.sink.on_transport_failure(Outcome::cancelled, "cancelled: the run was stopped");
    co_return false;
  }
  if (err.failed()) {
    const Outcome o = is_timeout(err.ec) ? Outcome::timeout : Outcome::connect_error;
    c.sink.on_transport_failure(o, "connect to " + where + " failed: " + err.ec.message());
    co_return false;
  }
  c.connected = true;
  co_return true;
}

Worker::Worker(const ClientOptions& opt, JobDone on_done) : Worker(opt, std::move(on_done), nullptr) {}

Worker::Worker(const ClientOptions& opt, JobDone on_done, std::function<std::unique_ptr<ByteStream>()> make_stream)
    : impl_(std::make_unique<Impl>(*this, opt, std::move(on_done), std::move(make_stream))) {
  impl_->thread = std::thread([this] {
    tid_.store(current_thread_id(), std::memory_order_release);
    impl_->ioc.run();
  });
}

Worker::~Worker() {
  impl_->guard.reset();
  impl_->ioc.stop();
  if (impl_->thread.joinable()) impl_->thread.join();
  impl_->pool->clear();
}

void Worker::set_pass_done(PassDone f) { impl_->pass_done = std::move(f); }

void Worker::submit(Job job) {
  in_flight_.fetch_add(1, std::memory_order_relaxed);
  job.seq = submitted_.fetch_add(1, std::memory_order_relaxed);
  // Reserve an idle connection now, so the dispatcher does not count it twice before the worker
  // thread picks the job up.
  int idle = idle_.load(std::memory_order_relaxed);
  while (idle > 0 && !idle_.compare_exchange_weak(idle, idle - 1, std::memory_order_relaxed)) {}
  job.reserved_idle = idle > 0;
  asio::co_spawn(impl_->ioc, impl_->serve(job), asio::detached);
}

void Worker::cancel_all() {
  asio::post(impl_->ioc, [impl = impl_.get()] {
    impl->cancelling = true;
    impl->pool->cancel_active();
  });
}

}  // namespace sb
