// The simulator's listener and its io thread: the acceptor spawns a Session (server_session.hpp)
// per connection; start/stop/run of server.hpp. The hub that drives the backend is server_hub.cpp.
#include "sim/server.hpp"

#include <csignal>
#include <memory>
#include <string>
#include <thread>
#include <utility>

#include <boost/asio.hpp>
#include <boost/beast/core/error.hpp>

#include "core/error.hpp"
#include "sim/server_session.hpp"

namespace sb::sim {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
using tcp = asio::ip::tcp;

asio::awaitable<void> accept_loop(tcp::acceptor& acceptor, std::shared_ptr<Shared> shared) {
  for (;;) {
    beast::error_code ec;
    tcp::socket sock = co_await acceptor.async_accept(asio::redirect_error(asio::use_awaitable, ec));
    if (ec == asio::error::operation_aborted || !acceptor.is_open()) co_return;
    if (ec) continue;  // e.g. EMFILE: keep serving the connections we have
    auto session = std::make_shared<Session>(std::move(sock), shared);
    asio::co_spawn(acceptor.get_executor(), session->run(session), asio::detached);
  }
}

}  // namespace

struct Server::Impl {
  asio::io_context ioc{1};
  std::shared_ptr<Shared> shared;
  tcp::acceptor acceptor{ioc};
  std::thread thread;
  std::uint16_t port = 0;
  bool stopped = false;

  Impl(ServerOptions opt, std::unique_ptr<Backend> backend) {
    const std::string where = opt.host + ":" + std::to_string(opt.port);
    const int backlog = opt.listen_backlog;
    shared = std::make_shared<Shared>(ioc, std::move(opt), std::move(backend));
    beast::error_code ec;
    const auto addr = asio::ip::make_address(shared->opt.host, ec);
    if (ec) throw UserError("--host: not an IP address: " + shared->opt.host);
    const tcp::endpoint ep(addr, shared->opt.port);
    acceptor.open(ep.protocol(), ec);
    if (!ec) acceptor.set_option(asio::socket_base::reuse_address(true), ec);
    // asio has no public SO_REUSEPORT option; its boolean socket-option template makes one.
    using reuse_port = asio::detail::socket_option::boolean<SOL_SOCKET, SO_REUSEPORT>;
    if (!ec && shared->opt.reuse_port) acceptor.set_option(reuse_port(true), ec);
    if (!ec) acceptor.bind(ep, ec);
    if (!ec) acceptor.listen(backlog, ec);
    if (ec) throw UserError("cannot listen on " + where + ": " + ec.message());
    port = acceptor.local_endpoint().port();
    asio::co_spawn(ioc, accept_loop(acceptor, shared), asio::detached);
  }
  void close_on_io_thread() {
    beast::error_code ignored;
    acceptor.close(ignored);
    shared->hub.shutdown();
    ioc.stop();
  }
};

Server::Server(ServerOptions opt, std::unique_ptr<Backend> backend)
    : impl_(std::make_unique<Impl>(std::move(opt), std::move(backend))) {}

Server::~Server() { stop(); }

std::uint16_t Server::port() const { return impl_->port; }

void Server::start() {
  impl_->thread = std::thread([this] { impl_->ioc.run(); });
}

void Server::stop() {
  if (impl_->stopped) return;
  impl_->stopped = true;
  asio::post(impl_->ioc, [impl = impl_.get()] { impl->close_on_io_thread(); });
  if (impl_->thread.joinable()) impl_->thread.join();
  if (impl_->shared->log) impl_->shared->log->flush();
}

void Server::run(const std::function<void()>& on_ready) {
  asio::signal_set signals(impl_->ioc, SIGINT, SIGTERM);
  signals.async_wait([impl = impl_.get()](const boost::system::error_code& ec, int) {
    if (!ec) impl->close_on_io_thread();
  });
  if (on_ready) on_ready();
  impl_->ioc.run();
  impl_->stopped = true;
  if (impl_->shared->log) impl_->shared->log->flush();
}

}  // namespace sb::sim
