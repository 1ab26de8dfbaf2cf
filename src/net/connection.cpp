// The one connection type (see connection.hpp). One of the few translation units that include
// Beast and asio::ssl: each costs 25-30 s to compile on a 2-core machine.
#include <utility>

#include "net/connection.hpp"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <array>
#include <boost/asio.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/ssl.hpp>
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <memory>
#include <optional>
#include <type_traits>

#include "core/clock.hpp"
#include "core/host_clocks.hpp"
#include "net/tls.hpp"

namespace sb {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
using tcp = asio::ip::tcp;
using boost::system::error_code;
using TlsStream = beast::ssl_stream<beast::tcp_stream>;

// The handshake failed the way it does against a server that does not speak TLS: no answer (a
// plain-HTTP server waits for a request line that never comes) or a record that is no TLS record
// (its "HTTP/1.1 400" answer).
bool not_a_tls_answer(const error_code& ec) {
  if (is_timeout(ec)) return true;
  if (ec.category() != asio::error::get_ssl_category()) return false;
  const int reason = ERR_GET_REASON(static_cast<unsigned long>(ec.value()));
  return reason == SSL_R_WRONG_VERSION_NUMBER || reason == SSL_R_PACKET_LENGTH_TOO_LONG ||
         reason == SSL_R_RECORD_LENGTH_MISMATCH;
}

// glibc's struct tcp_info stops before the kernel's tcpi_bytes_acked, which follows it after two
// 64-bit pacing rates (linux/tcp.h, kernel 4.1+; older kernels return a shorter struct).
constexpr std::size_t kBytesAckedOffset = sizeof(::tcp_info) + 2 * sizeof(std::uint64_t);
static_assert(sizeof(::tcp_info) == 104, "glibc's tcp_info layout changed");

// The deadline of a read that goes through recvmsg (for the kernel's receive time): Beast's own
// timer runs only during Beast's operations, so these reads keep their own. Shared with the timer's
// handler, which may run after the connection is gone (queued before it was destroyed): it then
// finds no socket and does nothing.
struct ReadWait {
  explicit ReadWait(asio::io_context& ioc) : timer(ioc) {}
  asio::steady_timer timer;
  tcp::socket* socket = nullptr;  // null once the connection is destroyed
  Deadline deadline = Deadline::max();
  std::uint64_t generation = 0;   // of the timer's pending wait: an older wait's handler does nothing
  bool armed = false;
  bool waiting = false;           // a read is pending
  bool timed_out = false;
};

// Lazy: the deadline moves with every read (the idle limit), and re-arming a timer for each read
// would cost a timer-queue insert and a cancelled handler per event. So a timer stays armed across
// reads; when it fires before the (since moved) deadline it arms again, once per idle period at most.
void arm(const std::shared_ptr<ReadWait>& w) {
  if (w->deadline == Deadline::max()) return;
  if (w->armed && w->timer.expiry() <= w->deadline) return;
  const std::uint64_t generation = ++w->generation;
  w->armed = true;
  w->timer.expires_at(w->deadline);  // a wait still pending ends as aborted, of an older generation
  w->timer.async_wait([w, generation](const error_code& ec) {
    if (generation != w->generation) return;
    w->armed = false;
    if (ec || w->socket == nullptr || !w->waiting) return;
    if (std::chrono::steady_clock::now() < w->deadline) return arm(w);
    w->timed_out = true;
    error_code ignored;
    w->socket->cancel(ignored);
  });
}

// One non-blocking recvmsg; `real_ns` is the kernel's receive time (CLOCK_REALTIME) of the last
// segment it read from, 0 where the kernel gave none.
ssize_t recv_stamped(int fd, asio::mutable_buffer into, std::int64_t& real_ns) {
  ::iovec iov{into.data(), into.size()};
  alignas(::cmsghdr) std::array<char, CMSG_SPACE(sizeof(::timespec))> control{};
  ::msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control.data();
  msg.msg_controllen = control.size();
  const ssize_t n = ::recvmsg(fd, &msg, MSG_DONTWAIT);
  if (n <= 0) return n;
  real_ns = 0;
  for (::cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_TIMESTAMPNS) continue;
    ::timespec ts{};
    std::memcpy(&ts, CMSG_DATA(c), sizeof ts);
    real_ns = static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
  }
  return n;
}

// asio's read of a socket, with recvmsg and its control message: the reactor runs do_perform at once
// (speculatively) and again each time epoll says the socket is readable, as it does its own
// reactive_socket_recv_op (this mirrors it), so the bytes are read when they can be, not when the
// coroutine gets to run; an async_wait and a read in the coroutine would read later (more segments
// merged into one, stamped with the last) and re-arm epoll with an epoll_ctl each time.
template <class Handler, class IoExecutor>
class StampedRecvOp : public asio::detail::reactor_op {
 public:
  BOOST_ASIO_DEFINE_HANDLER_PTR(StampedRecvOp);

  StampedRecvOp(int fd, asio::mutable_buffer into, std::int64_t* real_ns, Handler& handler, const IoExecutor& io_ex)
      : reactor_op(error_code(), &StampedRecvOp::do_perform, &StampedRecvOp::do_complete),
        fd_(fd), into_(into), real_ns_(real_ns), handler_(std::move(handler)), work_(handler_, io_ex) {}

  static status do_perform(reactor_op* base) {
    auto* o = static_cast<StampedRecvOp*>(base);
    ssize_t n = 0;
    do n = recv_stamped(o->fd_, o->into_, *o->real_ns_);
    while (n < 0 && errno == EINTR);
    if (n < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK) return not_done;
      o->ec_.assign(errno, boost::system::system_category());
      o->bytes_transferred_ = 0;
      return done;
    }
    o->bytes_transferred_ = static_cast<std::size_t>(n);
    // Not "exhausted" when it read less than it asked for, though that would spare the next read
    // its speculative recvmsg (21 % of the client's CPU per streamed event, measured): a FIN that
    // came with the data gives epoll no new edge, and the next read would wait out its deadline
    // (RunnerErrors.EveryFailureLandsInItsCategory caught it). asio says it only at EOF, as here.
    if (n > 0) return done;
    if (o->into_.size() > 0) o->ec_ = asio::error::eof;  // a stream socket's 0 bytes: the peer closed
    return done_and_exhausted;
  }

  static void do_complete(void* owner, asio::detail::operation* base, const error_code&, std::size_t) {
    auto* o = static_cast<StampedRecvOp*>(base);
    ptr p = {asio::detail::addressof(o->handler_), o, o};
    asio::detail::handler_work<Handler, IoExecutor> w(std::move(o->work_));
    // The handler is copied out so the operation's memory is freed before the upcall.
    asio::detail::binder2<Handler, error_code, std::size_t> handler(o->handler_, o->ec_, o->bytes_transferred_);
    p.h = asio::detail::addressof(handler.handler_);
    p.reset();
    if (owner != nullptr) {
      asio::detail::fenced_block b(asio::detail::fenced_block::half);
      w.complete(handler, handler.handler_);
    }
  }

 private:
  int fd_;
  asio::mutable_buffer into_;
  std::int64_t* real_ns_;  // the connection's; an operation never runs after its socket is closed
  Handler handler_;
  asio::detail::handler_work<Handler, IoExecutor> work_;
};

// The socket's reactor state and its service's start_op are protected; a pointer to member named
// through a derived class reaches them without copying asio's code (Boost 1.74's layout).
using SocketService = asio::detail::reactive_socket_service<tcp>;
struct SocketImplAccess : tcp::socket {
  static constexpr auto impl() { return &SocketImplAccess::impl_; }
};
struct ServiceAccess : SocketService {
  static constexpr auto start() { return &ServiceAccess::start_op; }
};

struct StampedReadInit {
  tcp::socket* socket;
  asio::mutable_buffer into;
  std::int64_t* real_ns;

  template <class Handler>
  void operator()(Handler&& handler) const {
    using H = std::decay_t<Handler>;
    auto& object = (*socket).*SocketImplAccess::impl();
    using Op = StampedRecvOp<H, std::decay_t<decltype(object.get_executor())>>;
    H h(std::forward<Handler>(handler));
    auto& impl = object.get_implementation();
    const bool is_continuation = boost_asio_handler_cont_helpers::is_continuation(h);
    typename Op::ptr p = {asio::detail::addressof(h), Op::ptr::allocate(h), nullptr};
    p.p = new (p.v) Op(impl.socket_, into, real_ns, h, object.get_executor());
    (object.get_service().*ServiceAccess::start())(impl, asio::detail::reactor::read_op, p.p, is_continuation,
                                                   /*is_non_blocking=*/true, /*noop=*/into.size() == 0);
    p.v = p.p = nullptr;
  }
};

asio::awaitable<std::size_t> read_stamped(std::shared_ptr<ReadWait> w, asio::mutable_buffer into, error_code& ec,
                                          std::int64_t& real_ns) {
  ec = {};
  arm(w);
  w->waiting = true;
  auto token = asio::redirect_error(asio::use_awaitable, ec);
  const std::size_t n = co_await asio::async_initiate<decltype(token), void(error_code, std::size_t)>(
      StampedReadInit{w->socket, into, &real_ns}, token);
  w->waiting = false;
  if (w->timed_out) {
    w->timed_out = false;
    ec = timeout_error();
    co_return 0;
  }
  co_return n;
}

// CLOCK_REALTIME minus the steady clock (CLOCK_MONOTONIC), per thread, read again every 100 ms: the
// two differ only by a step of the wall clock, and a stale difference lasts no longer than that.
// HostClocks takes it from the tightest of a few bracketed reads, so a preemption in between does
// not skew the stamps of the next 100 ms.
std::int64_t realtime_minus_steady(std::int64_t steady_now) {
  thread_local bool known = false;
  thread_local std::int64_t refreshed_at = 0;
  thread_local std::int64_t offset = 0;
  if (known && steady_now - refreshed_at < 100'000'000) return offset;
  known = true;
  offset = HostClocks::offset_ns(CLOCK_REALTIME, CLOCK_MONOTONIC);
  refreshed_at = steady_now;
  return offset;
}

// A receive time further before its read than this is not believed (a wall-clock step between two
// refreshes of the offset): the read time stands instead.
constexpr std::int64_t kMaxArrivalAgeNs = 10'000'000'000;

}  // namespace

error_code timeout_error() { return beast::error::timeout; }
bool is_timeout(const error_code& ec) { return ec == beast::error::timeout; }
bool is_eof(const error_code& ec) { return ec == asio::error::eof || ec == asio::ssl::error::stream_truncated; }
bool is_refused(const error_code& ec) { return ec == asio::error::connection_refused; }

struct Dialer::Impl {
  Impl(asio::io_context& io, Endpoint e) : ioc(io), ep(std::move(e)) {}
  asio::io_context& ioc;
  Endpoint ep;
  std::optional<asio::ssl::context> tls_ctx;
  std::string setup_error;
  std::optional<tcp::resolver::results_type> resolved;
  bool kernel_arrival_times = false;
};

Dialer::Dialer(asio::io_context& ioc, Endpoint endpoint)
    : impl_(std::make_unique<Impl>(ioc, std::move(endpoint))) {
  if (!impl_->ep.tls) return;
  impl_->tls_ctx.emplace(asio::ssl::context::tls_client);
  tls_configure_context(impl_->tls_ctx->native_handle(), impl_->ep.insecure, impl_->setup_error);
}

Dialer::~Dialer() = default;
const Endpoint& Dialer::endpoint() const noexcept { return impl_->ep; }
const std::string& Dialer::setup_error() const noexcept { return impl_->setup_error; }
void Dialer::use_kernel_arrival_times(bool on) noexcept { impl_->kernel_arrival_times = on; }
std::unique_ptr<Connection> Dialer::open() { return std::make_unique<Connection>(*this); }

struct Connection::Impl {
  explicit Impl(Dialer::Impl& d) : dialer(d) {
    if (d.tls_ctx) tls.emplace(d.ioc, *d.tls_ctx);
    else plain.emplace(d.ioc);
  }
  ~Impl() {
    if (!wait) return;
    wait->socket = nullptr;  // a handler already queued must not touch the socket
    wait->timer.cancel();
  }
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;
  beast::tcp_stream& lowest() { return tls ? beast::get_lowest_layer(*tls) : *plain; }
  const beast::tcp_stream& lowest() const { return tls ? beast::get_lowest_layer(*tls) : *plain; }

  Dialer::Impl& dialer;
  std::optional<beast::tcp_stream> plain;  // exactly one of plain and tls is set, for good
  std::optional<TlsStream> tls;
  bool connected = false;
  // Plain TCP: bytes_acked() once connected (Linux counts the SYN) plus every byte handed to write()
  // since. A write that fails ends the connection, so the count is exact while it is in use.
  std::uint64_t acked_when_all_sent = 0;
  // Plain TCP with SO_TIMESTAMPNS on: reads go through recvmsg (read_stamped) with this deadline,
  // and the latest read's kernel receive time (CLOCK_REALTIME ns, 0 = none) is kept here.
  std::shared_ptr<ReadWait> wait;
  std::int64_t arrival_real_ns = 0;
};

Connection::Connection(Dialer& dialer) : impl_(std::make_unique<Impl>(*dialer.impl_)) {}
Connection::~Connection() = default;
bool Connection::tls() const noexcept { return impl_->tls.has_value(); }

asio::awaitable<void> Connection::connect(Deadline deadline, ConnectError& error) {
  Impl& m = *impl_;
  Dialer::Impl& d = m.dialer;
  error = {};
  error_code ec;
  if (!d.resolved) {
    tcp::resolver resolver(d.ioc);
    auto results = co_await resolver.async_resolve(d.ep.host, std::to_string(d.ep.port),
                                                   asio::redirect_error(asio::use_awaitable, ec));
    if (ec) {
      error.step = ConnectError::Step::resolve;
      error.ec = ec;
      co_return;
    }
    d.resolved = std::move(results);
  }
  beast::tcp_stream& stream = m.lowest();
  stream.expires_at(deadline);
  co_await stream.async_connect(*d.resolved, asio::redirect_error(asio::use_awaitable, ec));
  if (ec) {
    error.step = ConnectError::Step::connect;
    error.ec = ec;
    co_return;
  }
  error_code ignored;
  stream.socket().set_option(tcp::no_delay(true), ignored);
  if (m.tls) {
    tls_prepare_session(m.tls->native_handle(), d.ep.host, d.ep.insecure);
    co_await m.tls->async_handshake(asio::ssl::stream_base::client, asio::redirect_error(asio::use_awaitable, ec));
    if (ec) {
      error.step = ConnectError::Step::tls;
      error.ec = ec;
      error.tls_detail = tls_failure_text(m.tls->native_handle(), ec.message());
      if (error.tls_detail == ec.message() && not_a_tls_answer(ec)) error.tls_detail = kNotTlsHint;
      co_return;
    }
  }
  m.connected = true;
  if (m.tls) co_return;
  m.acked_when_all_sent = bytes_acked();
  const int on = 1;
  if (d.kernel_arrival_times && !m.wait &&
      ::setsockopt(stream.socket().native_handle(), SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof on) == 0) {
    m.wait = std::make_shared<ReadWait>(d.ioc);
    m.wait->socket = &stream.socket();
    m.wait->deadline = deadline;
  }
}

// Not coroutines: they return the stream's own awaitable, so a read costs what it did before this
// class existed plus one virtual call.
asio::awaitable<std::size_t> Connection::write(asio::const_buffer head, asio::const_buffer body, error_code& ec) {
  const std::array<asio::const_buffer, 2> out{head, body};
  if (impl_->tls) return asio::async_write(*impl_->tls, out, asio::redirect_error(asio::use_awaitable, ec));
  impl_->acked_when_all_sent += head.size() + body.size();
  return asio::async_write(*impl_->plain, out, asio::redirect_error(asio::use_awaitable, ec));
}

asio::awaitable<std::size_t> Connection::read_some(asio::mutable_buffer into, error_code& ec) {
  if (impl_->tls) return impl_->tls->async_read_some(into, asio::redirect_error(asio::use_awaitable, ec));
  if (impl_->wait) return read_stamped(impl_->wait, into, ec, impl_->arrival_real_ns);
  return impl_->plain->async_read_some(into, asio::redirect_error(asio::use_awaitable, ec));
}

void Connection::expires_at(Deadline deadline) {
  impl_->lowest().expires_at(deadline);
  if (impl_->wait) impl_->wait->deadline = deadline;
}

bool Connection::kernel_arrival_times() const noexcept { return impl_->wait != nullptr; }

std::int64_t Connection::arrival_ns(std::int64_t read_at) const {
  const std::int64_t real = impl_->arrival_real_ns;
  if (real == 0) return read_at;
  const std::int64_t steady = real - realtime_minus_steady(read_at);
  if (steady > read_at || read_at - steady > kMaxArrivalAgeNs) return read_at;
  return steady;
}

void Connection::close() {
  impl_->connected = false;
  impl_->lowest().close();
}

bool Connection::usable() const {
  const Impl& m = *impl_;
  if (!m.connected) return false;
  auto& socket = const_cast<beast::tcp_stream&>(m.lowest()).socket();
  if (!socket.is_open()) return false;
  const int fd = socket.native_handle();
  for (int round = 0; round < 4; ++round) {
    std::array<char, 16> bytes{};
    const ssize_t n = ::recv(fd, bytes.data(), bytes.size(), MSG_PEEK | MSG_DONTWAIT);
    if (n == 0) return false;  // the peer closed it while it sat idle
    if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
    // TLS: records such as a late session ticket, which the next read consumes.
    if (m.tls) return true;
    // Plain HTTP: an extra CRLF after the last chunk is harmless (RFC 9112 2.2): consume it.
    // Other bytes nobody asked for (a 408 before a close) make the connection unusable.
    const auto end = bytes.begin() + n;
    if (std::find_if(bytes.begin(), end, [](char b) { return b != '\r' && b != '\n'; }) != end) return false;
    if (::recv(fd, bytes.data(), static_cast<std::size_t>(n), MSG_DONTWAIT) != n) return false;
  }
  return false;
}

std::uint64_t Connection::acked_mark() const { return impl_->tls ? bytes_acked() : impl_->acked_when_all_sent; }

std::uint64_t Connection::bytes_acked() const {
  auto& socket = const_cast<beast::tcp_stream&>(impl_->lowest()).socket();
  if (!socket.is_open()) return 0;
  std::array<unsigned char, kBytesAckedOffset + sizeof(std::uint64_t)> info{};
  socklen_t len = info.size();
  if (::getsockopt(socket.native_handle(), IPPROTO_TCP, TCP_INFO, info.data(), &len) != 0) return 0;
  if (len < info.size()) return 0;
  std::uint64_t acked = 0;
  std::memcpy(&acked, info.data() + kBytesAckedOffset, sizeof acked);
  return acked;
}

}  // namespace sb
