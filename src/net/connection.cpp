// The one connection type (see connection.hpp). One of the few translation units that include
// Beast and asio::ssl: each costs 25-30 s to compile on a 2-core machine.
#include <utility>

#include "net/connection.hpp"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <sys/socket.h>

#include <array>
#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/ssl.hpp>
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <optional>

#include "core/clock.hpp"
#include "net/kernel_stamped_read.hpp"
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

}  // namespace

error_code timeout_error() { return beast::error::timeout; }
bool is_timeout(const error_code& ec) { return ec == beast::error::timeout; }
bool is_eof(const error_code& ec) { return ec == asio::error::eof || ec == asio::ssl::error::stream_truncated; }
bool is_refused(const error_code& ec) { return ec == asio::error::connection_refused; }
bool is_reset(const error_code& ec) { return ec == asio::error::connection_reset || ec == asio::error::broken_pipe; }

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
  std::shared_ptr<kernel_stamped::ReadWait> wait;
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
    m.wait = std::make_shared<kernel_stamped::ReadWait>(d.ioc);
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
  if (impl_->wait) return kernel_stamped::read(impl_->wait, into, ec, impl_->arrival_real_ns);
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
  const std::int64_t steady = real - kernel_stamped::realtime_minus_steady(read_at);
  if (steady > read_at || read_at - steady > kernel_stamped::kMaxArrivalAgeNs) return read_at;
  return steady;
}

void Connection::close() {
  impl_->connected = false;
  impl_->lowest().close();
}

bool Connection::open() const {
  const Impl& m = *impl_;
  return m.connected && const_cast<beast::tcp_stream&>(m.lowest()).socket().is_open();
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

bool Connection::reset_by_peer() const {
  auto& socket = const_cast<beast::tcp_stream&>(impl_->lowest()).socket();
  if (!socket.is_open()) return false;
  ::tcp_info info{};
  socklen_t len = sizeof info;
  if (::getsockopt(socket.native_handle(), IPPROTO_TCP, TCP_INFO, &info, &len) != 0 || len < 1) return false;
  return info.tcpi_state == TCP_CLOSE;
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
