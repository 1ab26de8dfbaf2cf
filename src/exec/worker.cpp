// The client's hot path: one coroutine per request on the worker's io_context. Timestamps are taken
// once per read, right after async_read_some returns, and given to every token event that read
// delivered. Deadlines are Beast tcp_stream expiries (Asio 1.18 has no per-operation cancellation).
#include <utility>

#include "exec/worker.hpp"

#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <limits>
#include <optional>
#include <thread>
#include <unordered_set>
#include <vector>

#include "exec/response_sink.hpp"
#include "exec/runner.hpp"
#include "net/tls.hpp"

namespace sb {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using boost::system::error_code;
using Clock = std::chrono::steady_clock;
using TlsStream = beast::ssl_stream<beast::tcp_stream>;

constexpr std::size_t kReadChunk = 16 * 1024;   // per connection read buffer step
constexpr std::size_t kBodyScratch = 16 * 1024; // de-chunked body bytes per parser step

Clock::duration to_duration(double s) {
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
}

struct Conn {
  Conn(asio::io_context& ioc, asio::ssl::context* tls_ctx, StreamDecoder& dec, bool keep_text)
      : sink(dec, keep_text) {
    if (tls_ctx != nullptr) tls.emplace(ioc, *tls_ctx);
    else plain.emplace(ioc);
  }
  beast::tcp_stream& lowest() { return tls ? beast::get_lowest_layer(*tls) : *plain; }

  std::optional<beast::tcp_stream> plain;
  std::optional<TlsStream> tls;
  beast::flat_buffer buf;
  ResponseSink sink;
  std::string head;         // request head, reused across requests
  bool connected = false;
  bool used = false;        // served a request before: the server may have closed it meanwhile
  bool cancelled = false;
};

// What one attempt on one connection left behind.
enum class Attempt { keep, close, retry };

}  // namespace

struct Worker::Impl {
  Impl(Worker& owner, const ClientOptions& opt, JobDone on_done);

  asio::io_context ioc{1};
  asio::executor_work_guard<asio::io_context::executor_type> guard{ioc.get_executor()};
  Worker& owner;
  const ClientOptions& opt;
  JobDone on_done;
  std::optional<asio::ssl::context> tls_ctx;
  StreamDecoder decoder;
  std::optional<tcp::resolver::results_type> resolved;
  std::string head_prefix;  // request line and fixed headers, built once
  std::vector<std::unique_ptr<Conn>> idle;
  std::unordered_set<Conn*> active;
  std::vector<char> body_scratch = std::vector<char>(kBodyScratch);
  bool cancelling = false;
  std::thread thread;

  asio::awaitable<void> serve(Job job);
  asio::awaitable<void> run_job(const Job& job);
  asio::awaitable<Attempt> attempt(Conn& c, const Job& job, Clock::time_point deadline);
  asio::awaitable<bool> connect(Conn& c, Clock::time_point deadline);
  template <class Stream>
  asio::awaitable<Attempt> exchange(Stream& s, Conn& c, const Job& job, Clock::time_point deadline);
  bool feed_parser(Conn& c, http::response_parser<http::buffer_body>& p, Nanos t_ns, error_code& ec);
  Attempt read_failed(Conn& c, const error_code& ec, const Job& job, Clock::time_point deadline,
                      http::response_parser<http::buffer_body>& p);
  void arm(Conn& c, Clock::time_point deadline) const {
    const bool idle_limit = opt.idle_timeout_s > 0;
    c.lowest().expires_at(idle_limit ? std::min(deadline, Clock::now() + to_duration(opt.idle_timeout_s))
                                     : deadline);
  }
  std::unique_ptr<Conn> acquire(bool reserved);
  void build_head(Conn& c, const Job& job) const;
};

Worker::Impl::Impl(Worker& w, const ClientOptions& o, JobDone done)
    : owner(w), opt(o), on_done(std::move(done)), decoder(o.api) {
  if (opt.endpoint.tls) {
    tls_ctx.emplace(asio::ssl::context::tls_client);
    std::string err;
    tls_configure_context(tls_ctx->native_handle(), opt.endpoint.insecure, err);
  }
  head_prefix = "POST " + opt.endpoint.base_path + opt.path + " HTTP/1.1\r\nHost: " +
                opt.endpoint.authority() + "\r\nUser-Agent: servebench/" SB_VERSION
                "\r\nContent-Type: application/json\r\nAccept: */*\r\n";
  for (const auto& [k, v] : opt.headers) head_prefix += k + ": " + v + "\r\n";
}

std::unique_ptr<Conn> Worker::Impl::acquire(bool reserved) {
  if (!idle.empty()) {
    auto c = std::move(idle.back());  // LIFO: the most recently used socket is the least likely stale
    idle.pop_back();
    if (!reserved) owner.idle_.fetch_sub(1, std::memory_order_relaxed);
    return c;
  }
  // The reserved connection went to a job that had none reserved: give the count back.
  if (reserved) owner.idle_.fetch_add(1, std::memory_order_relaxed);
  return std::make_unique<Conn>(ioc, tls_ctx ? &*tls_ctx : nullptr, decoder, opt.keep_text);
}

void Worker::Impl::build_head(Conn& c, const Job& job) const {
  c.head.assign(head_prefix);
  if (!job.request_id.empty()) c.head.append("x-request-id: ").append(job.request_id).append("\r\n");
  c.head.append("Content-Length: ").append(std::to_string(job.body->size())).append("\r\n\r\n");
}

// Every request gets a final outcome and exactly one completion, even if something throws.
asio::awaitable<void> Worker::Impl::serve(Job job) {
  RequestRecord& rec = *job.record;
  std::string failure;
  try {
    co_await run_job(job);
  } catch (const std::exception& e) {
    failure = e.what();
  }
  if (!failure.empty()) {
    rec.outcome = Outcome::connect_error;
    rec.error = "client failure: " + failure;
  }
  if (rec.outcome == Outcome::cancelled) rec.aborted = true;
  rec.done_ns = now_ns() - job.t0_ns;
  owner.in_flight_.fetch_sub(1, std::memory_order_relaxed);
  on_done(rec);
}

asio::awaitable<void> Worker::Impl::run_job(const Job& job) {
  RequestRecord& rec = *job.record;
  rec.token_ns.reserve(static_cast<std::size_t>(std::max(0, rec.expected_output_tokens)) + 8);
  rec.sent_ns = now_ns() - job.t0_ns;  // vLLM's st: connection setup, if any, counts in TTFT
  const auto deadline = Clock::now() + to_duration(opt.timeout_s);
  for (int tries = 0;; ++tries) {
    auto conn = acquire(job.reserved_idle && tries == 0);
    const bool reused = conn->used;
    conn->sink.begin(rec);
    active.insert(conn.get());
    const Attempt a = co_await attempt(*conn, job, deadline);
    active.erase(conn.get());
    // A kept-alive socket the server closed while idle fails before any byte: not the request's fault.
    if (a == Attempt::retry && reused && tries == 0 && !cancelling) continue;
    if (a == Attempt::retry) {
      conn->sink.on_transport_failure(Outcome::connect_error, rec.error.empty()
                                                                  ? "connection closed before any response byte"
                                                                  : rec.error);
    }
    if (a == Attempt::keep) {
      idle.push_back(std::move(conn));
      owner.idle_.fetch_add(1, std::memory_order_relaxed);
    }
    break;
  }
}

asio::awaitable<Attempt> Worker::Impl::attempt(Conn& c, const Job& job, Clock::time_point deadline) {
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
  Attempt result = Attempt::close;
  if (c.tls) {
    result = co_await exchange(*c.tls, c, job, deadline);
  } else {
    result = co_await exchange(*c.plain, c, job, deadline);
  }
  co_return result;
}

asio::awaitable<bool> Worker::Impl::connect(Conn& c, Clock::time_point deadline) {
  const Endpoint& ep = opt.endpoint;
  const std::string where = ep.host + ":" + std::to_string(ep.port);
  error_code ec;
  if (!resolved) {
    tcp::resolver resolver(ioc);
    auto r = co_await resolver.async_resolve(ep.host, std::to_string(ep.port),
                                             asio::redirect_error(asio::use_awaitable, ec));
    if (ec) {
      c.sink.on_transport_failure(Outcome::connect_error, "cannot resolve " + ep.host + ": " + ec.message());
      co_return false;
    }
    resolved = r;
  }
  arm(c, deadline);
  co_await c.lowest().async_connect(*resolved, asio::redirect_error(asio::use_awaitable, ec));
  if (!ec) {
    c.lowest().socket().set_option(tcp::no_delay(true), ec);
    owner.opened_.fetch_add(1, std::memory_order_relaxed);
  }
  if (!ec && c.tls) {
    tls_prepare_session(c.tls->native_handle(), ep.host, ep.insecure);
    co_await c.tls->async_handshake(asio::ssl::stream_base::client,
                                    asio::redirect_error(asio::use_awaitable, ec));
    if (ec && !c.cancelled) {
      c.sink.on_transport_failure(Outcome::connect_error, "TLS handshake with " + where + " failed: " +
                                  tls_failure_text(c.tls->native_handle(), ec.message()));
      co_return false;
    }
  }
  if (c.cancelled) {
    c.sink.on_transport_failure(Outcome::cancelled, "cancelled: the run was stopped");
    co_return false;
  }
  if (ec) {
    const Outcome o = ec == beast::error::timeout ? Outcome::timeout : Outcome::connect_error;
    c.sink.on_transport_failure(o, "connect to " + where + " failed: " + ec.message());
    co_return false;
  }
  c.connected = true;
  co_return true;
}

template <class Stream>
asio::awaitable<Attempt> Worker::Impl::exchange(Stream& s, Conn& c, const Job& job,
                                                Clock::time_point deadline) {
  RequestRecord& rec = *job.record;
  error_code ec;
  arm(c, deadline);
  const std::array<asio::const_buffer, 2> out{asio::buffer(c.head), asio::buffer(*job.body)};
  co_await asio::async_write(s, out, asio::redirect_error(asio::use_awaitable, ec));
  http::response_parser<http::buffer_body> parser;
  parser.body_limit(std::numeric_limits<std::uint64_t>::max());
  parser.eager(true);
  c.buf.clear();
  while (!ec) {
    arm(c, deadline);
    const std::size_t n = co_await s.async_read_some(c.buf.prepare(kReadChunk),
                                                     asio::redirect_error(asio::use_awaitable, ec));
    const Nanos t_ns = now_ns() - job.t0_ns;  // one clock read per read syscall
    c.buf.commit(n);
    if (n > 0 && rec.first_byte_ns < 0) rec.first_byte_ns = t_ns;
    error_code perr;
    if (n > 0 && !feed_parser(c, parser, t_ns, perr)) {
      if (perr) c.sink.on_transport_failure(Outcome::malformed, "bad HTTP response: " + perr.message());
      co_return Attempt::close;
    }
    if (parser.is_done()) {
      c.sink.on_complete(t_ns);
      co_return parser.keep_alive() && !c.sink.failed() ? Attempt::keep : Attempt::close;
    }
  }
  co_return read_failed(c, ec, job, deadline, parser);
}

// Runs the buffered bytes through Beast's parser into the sink. False: stop reading (malformed).
bool Worker::Impl::feed_parser(Conn& c, http::response_parser<http::buffer_body>& p, Nanos t_ns,
                               error_code& ec) {
  while (c.buf.size() > 0 && !p.is_done()) {
    const bool had_header = p.is_header_done();
    p.get().body().data = body_scratch.data();
    p.get().body().size = body_scratch.size();
    const std::size_t used = p.put(c.buf.data(), ec);
    c.buf.consume(used);
    const std::size_t got = body_scratch.size() - p.get().body().size;
    if (!had_header && p.is_header_done()) {
      const auto& h = p.get();
      const auto ct = h[http::field::content_type];
      c.sink.on_headers(static_cast<int>(h.result_int()), std::string_view(h.reason().data(), h.reason().size()),
                        std::string_view(ct.data(), ct.size()));
    }
    if (got > 0 && !c.sink.on_body(std::string_view(body_scratch.data(), got), t_ns)) return false;
    if (ec == http::error::need_buffer) { ec = {}; continue; }
    if (ec == http::error::need_more) { ec = {}; break; }
    if (ec) return false;
    if (used == 0 && got == 0) break;
  }
  return true;
}

Attempt Worker::Impl::read_failed(Conn& c, const error_code& ec, const Job& job,
                                  Clock::time_point deadline, http::response_parser<http::buffer_body>& p) {
  RequestRecord& rec = *job.record;
  if (c.cancelled || cancelling) {
    c.sink.on_transport_failure(Outcome::cancelled, "cancelled: the run was stopped");
    return Attempt::close;
  }
  if (ec == beast::error::timeout) {
    const bool whole = Clock::now() >= deadline;
    c.sink.on_transport_failure(Outcome::timeout,
                                whole ? "no complete response within timeout_s=" + std::to_string(opt.timeout_s)
                                      : "no data for idle_timeout_s=" + std::to_string(opt.idle_timeout_s));
    return Attempt::close;
  }
  const bool eof = ec == asio::error::eof || ec == asio::ssl::error::stream_truncated;
  if (eof && p.is_header_done()) {
    error_code e2;
    p.put_eof(e2);  // a body delimited by connection close ends here
    if (!e2 && p.is_done()) {
      c.sink.on_complete(now_ns() - job.t0_ns);
      return Attempt::close;
    }
  }
  if (rec.first_byte_ns < 0) {
    rec.error = eof ? "" : "connection failed before any response byte: " + ec.message();
    return Attempt::retry;
  }
  c.sink.on_transport_failure(Outcome::dropped, (eof ? std::string("connection closed") : ec.message()) +
                                                    " mid-response after " +
                                                    std::to_string(rec.token_ns.size()) + " token events");
  return Attempt::close;
}

Worker::Worker(const ClientOptions& opt, JobDone on_done)
    : impl_(std::make_unique<Impl>(*this, opt, std::move(on_done))) {
  impl_->thread = std::thread([this] { impl_->ioc.run(); });
}

Worker::~Worker() {
  impl_->guard.reset();
  impl_->ioc.stop();
  if (impl_->thread.joinable()) impl_->thread.join();
  impl_->idle.clear();
}

void Worker::submit(Job job) {
  in_flight_.fetch_add(1, std::memory_order_relaxed);
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
    for (Conn* c : impl->active) {
      c->cancelled = true;
      c->lowest().close();
    }
  });
}

}  // namespace sb
