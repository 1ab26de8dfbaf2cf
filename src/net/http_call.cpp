// Cold-path HTTP calls: one io_context and one net::Connection per call (plain or TLS as the
// endpoint says), one deadline for the whole call. Beast's parser reads the response, so this is one
// of the few translation units that include Beast (~25 s each to compile).
#include <utility>

#include "net/http_call.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>
#include <chrono>

#include "core/error.hpp"
#include "net/connection.hpp"
#include "net/secrets.hpp"

namespace sb {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
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
  if (is_timeout(ec)) return std::string("no answer within the timeout while ") + phase;
  if (is_refused(ec)) {
    return "connection refused by " + where +
           ": is the server running and listening on port " + std::to_string(st.ep.port) +
           "? A server bound to 127.0.0.1 is unreachable from other hosts (bind 0.0.0.0), and one "
           "bound to another address refuses loopback";
  }
  return std::string(phase) + " " + where + " failed: " + ec.message();
}

std::string describe_connect(const CallState& st, const ConnectError& e) {
  switch (e.step) {
    case ConnectError::Step::resolve:
      return "cannot resolve host name '" + st.ep.host + "': " + e.ec.message() +
             " (check the spelling of --base-url/--host)";
    case ConnectError::Step::tls:
      return "TLS handshake with " + st.ep.host + ":" + std::to_string(st.ep.port) + " failed: " + e.tls_detail;
    default: return describe(st, e.ec, "connecting to");
  }
}

std::string request_head(const CallState& st) {
  std::string head = std::string(st.method) + " " + st.ep.base_path + std::string(st.path) +
                     " HTTP/1.1\r\nHost: " + st.ep.authority() + "\r\nUser-Agent: servebench/" SB_VERSION "\r\n";
  for (const auto& [k, v] : st.headers) head += k + ": " + v + "\r\n";
  if (!st.body.empty() || st.method == "POST") {
    head += "Content-Type: application/json\r\nContent-Length: " + std::to_string(st.body.size()) + "\r\n";
  }
  return head + "\r\n";
}

// Reads one whole response into st.reply (a body delimited by the connection's close included).
asio::awaitable<void> read_reply(ByteStream& conn, CallState& st) {
  beast::flat_buffer buf;
  http::response_parser<http::string_body> parser;
  parser.body_limit(64 * 1024 * 1024);
  error_code ec;
  while (!parser.is_done()) {
    const std::size_t n = co_await conn.read_some(buf.prepare(16 * 1024), ec);
    buf.commit(n);
    if (ec && is_eof(ec) && parser.is_header_done()) {
      ec = {};
      parser.put_eof(ec);
      if (!ec) break;
    }
    if (ec) { st.failure = describe(st, ec, "reading the response from"); co_return; }
    while (buf.size() > 0 && !parser.is_done()) {
      const std::size_t used = parser.put(buf.data(), ec);
      buf.consume(used);
      if (ec == http::error::need_more) { ec = {}; break; }
      if (ec) { st.failure = describe(st, ec, "reading the response from"); co_return; }
    }
  }
  auto& res = parser.get();
  st.reply.status = static_cast<int>(res.result_int());
  st.reply.reason = std::string(res.reason());
  st.reply.content_type = std::string(res[http::field::content_type]);
  st.reply.server = std::string(res[http::field::server]);
  st.reply.body = std::move(res.body());
}

asio::awaitable<void> run_call(CallState& st, Dialer& dialer) {
  const std::unique_ptr<Connection> conn = dialer.open();
  ConnectError cerr;
  co_await conn->connect(st.deadline, cerr);  // the deadline stays armed for the whole call
  if (cerr.failed()) { st.failure = describe_connect(st, cerr); co_return; }
  const std::string head = request_head(st);
  error_code ec;
  co_await conn->write(asio::buffer(head), asio::buffer(st.body.data(), st.body.size()), ec);
  if (ec) { st.failure = describe(st, ec, "sending to"); co_return; }
  co_await read_reply(*conn, st);
  conn->close();
}

}  // namespace

HttpReply http_call(const Endpoint& ep, std::string_view method, std::string_view path,
                    const HeaderList& headers, std::string_view body, double timeout_s) {
  CallState st{ep, method, path, headers, body,
               std::chrono::steady_clock::now() +
                   std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                       std::chrono::duration<double>(timeout_s)),
               {}, {}};
  asio::io_context ioc(1);
  Dialer dialer(ioc, ep);
  if (!dialer.setup_error().empty()) fail(st, dialer.setup_error());
  std::exception_ptr thrown;
  asio::co_spawn(ioc, run_call(st, dialer), [&thrown](std::exception_ptr e) { thrown = e; });
  ioc.run();
  if (thrown) std::rethrow_exception(thrown);
  if (!st.failure.empty()) fail(st, st.failure);
  if (st.reply.status / 100 != 2) {  // error texts that echo the key get printed by the callers
    const std::vector<std::string> secrets = secret_header_values(headers);
    scrub_secrets(st.reply.body, secrets);
    scrub_secrets(st.reply.reason, secrets);
  }
  return std::move(st.reply);
}

}  // namespace sb
