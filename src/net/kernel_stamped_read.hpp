#pragma once
// A read of a plain TCP socket stamped with the kernel's receive time of its bytes (SO_TIMESTAMPNS,
// through recvmsg), as an asio reactor operation of our own, with its own read deadline. Private to
// net/connection.cpp, the one translation unit that includes it: it holds Boost.Asio, which nothing
// outside net/, exec/ and sim/ sees (docs/architecture.md).
#include <sys/socket.h>
#include <sys/uio.h>

#include <boost/asio.hpp>
#include <boost/asio/steady_timer.hpp>
#include <cerrno>
#include <cstdint>
#include <ctime>
#include <memory>
#include <type_traits>

#include "core/clock.hpp"
#include "core/host_clocks.hpp"
#include "net/connection.hpp"

namespace sb::kernel_stamped {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using boost::system::error_code;

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
inline void arm(const std::shared_ptr<ReadWait>& w) {
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
inline ssize_t recv_stamped(int fd, asio::mutable_buffer into, std::int64_t& real_ns) {
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

inline asio::awaitable<std::size_t> read(std::shared_ptr<ReadWait> w, asio::mutable_buffer into, error_code& ec,
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
inline std::int64_t realtime_minus_steady(std::int64_t steady_now) {
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
inline constexpr std::int64_t kMaxArrivalAgeNs = 10'000'000'000;

}  // namespace sb::kernel_stamped
