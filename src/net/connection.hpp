#pragma once
// The client's one connection type: plain TCP or TLS, decided once from the Endpoint when the
// connection is made, with a deadline on every operation. The exec workers' keep-alive pools (hot
// path) and net/http_call (cold path) both use it.
//
// Only the transport translation units include this header, since it names Asio's awaitable,
// buffer and error types (net/http_call.cpp, exec/worker.cpp, exec/exchange.cpp, exec/conn_pool.cpp).
// Beast and asio::ssl stay inside connection.cpp. Everything else reaches the network through
// worker.hpp or http_call.hpp, which name no Boost type.
//
// Asio 1.18 (Boost 1.74) has no per-operation cancellation, so a deadline is an expiry of Beast's
// tcp_stream: once it passes, the pending operation fails with timeout_error().
#include <boost/asio/awaitable.hpp>
#include <boost/asio/buffer.hpp>
#include <boost/system/error_code.hpp>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "net/endpoint.hpp"

namespace boost::asio {
class io_context;
}

namespace sb {

using Deadline = std::chrono::steady_clock::time_point;

// What a TLS handshake with a plain-HTTP port says (it times out or reads "HTTP/1.1 400").
inline constexpr const char* kNotTlsHint = "the server did not answer TLS (is it plain HTTP? try http://)";

// Why connect() failed, and at which step. The caller words the message: the load client and the
// cold-path calls say it differently (the tests pin both wordings).
struct ConnectError {
  enum class Step { none, resolve, connect, tls };
  Step step = Step::none;
  boost::system::error_code ec;
  // Step::tls: certificate errors spelled out; a peer that does not speak TLS (no answer, or a
  // plain-HTTP answer) gets kNotTlsHint; else the transport error.
  std::string tls_detail;

  bool failed() const noexcept { return step != Step::none; }
  bool tcp_connected() const noexcept { return step == Step::none || step == Step::tls; }
};

// What the HTTP exchange needs from a connection. Connection implements it over sockets; the exec
// tests implement it in memory (scripted reads, splits, resets) to test the exchange and the pool.
class ByteStream {
 public:
  virtual ~ByteStream() = default;

  // Resolves (the first time only, see Dialer), connects and, for https, does the TLS handshake
  // with SNI and certificate verification, all before `deadline`. `error` says what failed.
  virtual boost::asio::awaitable<void> connect(Deadline deadline, ConnectError& error) = 0;
  // Writes `head` then `body` completely (one gathered write).
  virtual boost::asio::awaitable<std::size_t> write(boost::asio::const_buffer head, boost::asio::const_buffer body,
                                                    boost::system::error_code& ec) = 0;
  // What one read returned (at least one byte unless `ec` is set).
  virtual boost::asio::awaitable<std::size_t> read_some(boost::asio::mutable_buffer into,
                                                        boost::system::error_code& ec) = 0;
  // Later (and pending) operations fail with timeout_error() once `deadline` has passed.
  virtual void expires_at(Deadline deadline) = 0;
  // Closes the socket; pending operations end with an error. Safe to call more than once.
  virtual void close() = 0;
  // Connected, still open, and the peer has neither closed nor sent anything unasked: a request
  // can be sent on it. Never blocks (one non-blocking peek at the socket).
  // Stray CR/LF bytes after a response (a server's extra CRLF after the last chunk) are consumed.
  virtual bool usable() const = 0;
  // Connected and not closed on this side: what usable() knows without a system call. A pool may
  // send on a connection that passed this alone when it has reason to trust it (exec/conn_pool).
  virtual bool open() const { return usable(); }
  // Bytes written on this connection that the peer's TCP has acknowledged (Linux TCP_INFO), 0 where
  // unknown. A request whose bytes were never acknowledged cannot have reached the server: the
  // peer's socket was closed when they arrived (it answered with a reset), so resending is safe.
  virtual std::uint64_t bytes_acked() const { return 0; }
  // What bytes_acked() reads once every byte written so far is acknowledged: taken before a write,
  // bytes_acked() above it later means the peer acknowledged bytes of that write. Plain TCP counts
  // it here, without a system call per request; TLS (records, not the bytes written) and streams
  // that know no better read bytes_acked() now.
  virtual std::uint64_t acked_mark() const { return bytes_acked(); }
  // After a read found the peer's FIN: whether a reset followed it (the socket has left CLOSE_WAIT
  // for CLOSED, Linux TCP_INFO), as when the server closed with bytes of ours unread. false where
  // unknown.
  virtual bool reset_by_peer() const { return false; }
  // When the last byte of the latest read reached this machine, on the steady clock: the kernel's
  // receive time where the stream has it (plain TCP with kernel arrival times on), else `read_at`,
  // the time the caller saw the read complete. Never after `read_at`. A client thread busy with
  // other sockets reads late; the kernel's time does not move with it, so a burst of events read
  // one socket after another is not a burst of made-up latency.
  virtual std::int64_t arrival_ns(std::int64_t read_at) const { return read_at; }
};

// The error a passed deadline gives, and the errors that mean "the peer closed the connection"
// (a TLS peer that closes without close_notify included).
boost::system::error_code timeout_error();
bool is_timeout(const boost::system::error_code& ec);
bool is_eof(const boost::system::error_code& ec);
bool is_refused(const boost::system::error_code& ec);
// The peer reset the connection (ECONNRESET; EPIPE too: Linux's word for a reset that follows the
// peer's FIN), rather than closing it with a FIN alone.
bool is_reset(const boost::system::error_code& ec);

class Connection;

// What all connections to one endpoint on one io_context share: the endpoint, the TLS context
// (system CA store, verification unless --insecure; built once, here) and the resolved addresses
// (looked up by the first connect, then reused). Outlives the connections it opens.
class Dialer {
 public:
  Dialer(boost::asio::io_context& ioc, Endpoint endpoint);
  ~Dialer();
  Dialer(const Dialer&) = delete;
  Dialer& operator=(const Dialer&) = delete;

  const Endpoint& endpoint() const noexcept;
  // Non-empty when the TLS context could not be set up (no CA store): handshakes would then fail
  // verification. The cold path reports it at once; the load client lets each request fail.
  const std::string& setup_error() const noexcept;
  // Plain TCP connections opened after this ask the kernel for each segment's receive time
  // (SO_TIMESTAMPNS) and read through recvmsg; arrival_ns() then reports it. TLS ignores it.
  void use_kernel_arrival_times(bool on) noexcept;
  std::unique_ptr<Connection> open();  // a new connection, not yet connected

  struct Impl;  // defined in connection.cpp

 private:
  friend class Connection;
  std::unique_ptr<Impl> impl_;
};

// Plain TCP or TLS as the dialer's endpoint says; TCP_NODELAY on (SSE is many small writes).
class Connection final : public ByteStream {
 public:
  explicit Connection(Dialer& dialer);
  ~Connection() override;

  boost::asio::awaitable<void> connect(Deadline deadline, ConnectError& error) override;
  boost::asio::awaitable<std::size_t> write(boost::asio::const_buffer head, boost::asio::const_buffer body,
                                            boost::system::error_code& ec) override;
  boost::asio::awaitable<std::size_t> read_some(boost::asio::mutable_buffer into,
                                                boost::system::error_code& ec) override;
  void expires_at(Deadline deadline) override;
  void close() override;
  bool usable() const override;
  bool open() const override;
  std::uint64_t bytes_acked() const override;
  std::uint64_t acked_mark() const override;
  bool reset_by_peer() const override;
  std::int64_t arrival_ns(std::int64_t read_at) const override;
  bool tls() const noexcept;
  bool kernel_arrival_times() const noexcept;  // connected with SO_TIMESTAMPNS on

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace sb
