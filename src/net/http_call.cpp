// Cold-path HTTP calls: one io_context per call, Beast's tcp_stream deadline for the timeout.
// One of the few translation units that include Asio/Beast (they cost ~25 s each to compile).
#include <utility>

#include "net/http_call.hpp"

#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <chrono>
#include <optional>

#include "core/error.hpp"
#include "net/tls.hpp"

namespace sb {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using boost::system::error_code;

struct CallState {
  const Endpoint& ep;
  std::string_view method;
  std::string_view path;
  const HeaderList& headers;
  std::string_view body;
  std::chrono::steady_clock::time_point deadline;
  HttpReply reply;
  std::string failure;  // set when the transport failed
};

[[noreturn]] void fail(const CallState& st, const std::string& why) {
  throw UserError("cannot reach " + st.ep.url(st.path) + ": " + why, ExitCode::unreachable);
}

std::string describe(const CallState& st, const error_code& ec, const char* phase) {
  const std::string where = st.ep.host + ":" + std::to_string(st.ep.port);
  if (ec == beast::error::timeout) return std::string("no answer within the timeout while ") + phase;
  if (ec == asio::error::connection_refused) {
    return "connection refused by " + where +
           ": is the server running and listening on port " + std::to_string(st.ep.port) +
           "? A server bound to 127.0.0.1 is unreachable from other hosts (bind 0.0.0.0), and one "
           "bound to another address refuses loopback";
  }
  return std::string(phase) + " " + where + " failed: " + ec.message();
}

template <class Stream>
asio::awaitable<void> exchange(Stream& stream, CallState& st) {
  http::request<http::string_body> req{http::string_to_verb(beast::string_view(st.method.data(), st.method.size())),
                                       st.ep.base_path + std::string(st.path), 11};
  req.set(http::field::host, st.ep.authority());
  req.set(http::field::user_agent, "servebench/" SB_VERSION);
  for (const auto& [k, v] : st.headers) req.set(k, v);
  if (!st.body.empty() || st.method == "POST") {
    req.set(http::field::content_type, "application/json");
    req.body() = std::string(st.body);
    req.prepare_payload();
  }
  error_code ec;
  co_await http::async_write(stream, req, asio::redirect_error(asio::use_awaitable, ec));
  if (ec) { st.failure = describe(st, ec, "sending to"); co_return; }
  beast::flat_buffer buf;
  http::response_parser<http::string_body> parser;
  parser.body_limit(64 * 1024 * 1024);
  co_await http::async_read(stream, buf, parser, asio::redirect_error(asio::use_awaitable, ec));
  if (ec) { st.failure = describe(st, ec, "reading the response from"); co_return; }
  auto& res = parser.get();
  st.reply.status = static_cast<int>(res.result_int());
  st.reply.reason = std::string(res.reason());
  st.reply.content_type = std::string(res[http::field::content_type]);
  st.reply.body = std::move(res.body());
}

asio::awaitable<void> run_call(CallState& st, asio::ssl::context* tls_ctx) {
  auto ex = co_await asio::this_coro::executor;
  error_code ec;
  tcp::resolver resolver(ex);
  auto results = co_await resolver.async_resolve(st.ep.host, std::to_string(st.ep.port),
                                                 asio::redirect_error(asio::use_awaitable, ec));
  if (ec) {
    st.failure = "cannot resolve host name '" + st.ep.host + "': " + ec.message() +
                 " (check the spelling of --base-url/--host)";
    co_return;
  }
  beast::tcp_stream tcp_stream(ex);
  tcp_stream.expires_at(st.deadline);
  co_await tcp_stream.async_connect(results, asio::redirect_error(asio::use_awaitable, ec));
  if (ec) { st.failure = describe(st, ec, "connecting to"); co_return; }
  tcp_stream.socket().set_option(tcp::no_delay(true), ec);
  if (tls_ctx == nullptr) {
    co_await exchange(tcp_stream, st);
    co_return;
  }
  beast::ssl_stream<beast::tcp_stream> tls(std::move(tcp_stream), *tls_ctx);
  tls_prepare_session(tls.native_handle(), st.ep.host, st.ep.insecure);
  co_await tls.async_handshake(asio::ssl::stream_base::client,
                               asio::redirect_error(asio::use_awaitable, ec));
  if (ec) {
    st.failure = "TLS handshake with " + st.ep.host + ":" + std::to_string(st.ep.port) +
                 " failed: " + tls_failure_text(tls.native_handle(), ec.message());
    co_return;
  }
  co_await exchange(tls, st);
}

}  // namespace

HttpReply http_call(const Endpoint& ep, std::string_view method, std::string_view path,
                    const HeaderList& headers, std::string_view body, double timeout_s) {
  CallState st{ep, method, path, headers, body,
               std::chrono::steady_clock::now() +
                   std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                       std::chrono::duration<double>(timeout_s)),
               {}, {}};
  std::optional<asio::ssl::context> tls_ctx;
  if (ep.tls) {
    tls_ctx.emplace(asio::ssl::context::tls_client);
    std::string err;
    if (!tls_configure_context(tls_ctx->native_handle(), ep.insecure, err)) fail(st, err);
  }
  asio::io_context ioc(1);
  std::exception_ptr thrown;
  asio::co_spawn(ioc, run_call(st, tls_ctx ? &*tls_ctx : nullptr),
                 [&thrown](std::exception_ptr e) { thrown = e; });
  ioc.run();
  if (thrown) std::rethrow_exception(thrown);
  if (!st.failure.empty()) fail(st, st.failure);
  return std::move(st.reply);
}

}  // namespace sb
