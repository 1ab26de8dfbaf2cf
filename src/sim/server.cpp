// The only Asio/Beast translation unit of the simulator: listener, connections, and the hub that
// drives the backend from one timer. Formatting lives in server_stream / server_routes (sans-I/O).
#include "sim/server.hpp"

#include <csignal>
#include <optional>
#include <thread>
#include <unordered_map>
#include <utility>

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include "core/error.hpp"
#include "net/server_http.hpp"
#include "sim/request_parse.hpp"
#include "sim/server_routes.hpp"
#include "sim/server_stream.hpp"
#include "sim/token_log.hpp"
#include "tokenizer/tokenizer.hpp"

namespace sb::sim {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using Request = http::request<http::string_body>;

std::chrono::steady_clock::time_point to_time_point(Nanos ns) {
  return std::chrono::steady_clock::time_point(std::chrono::nanoseconds(ns));
}

std::string_view sv(beast::string_view s) { return {s.data(), s.size()}; }

class Session;

// Owns the backend. Every call happens on the io thread, so neither needs a lock.
class Hub {
 public:
  Hub(asio::io_context& ioc, std::unique_ptr<Backend> backend)
      : timer_(ioc), backend_(std::move(backend)) { events_.reserve(4096); }

  Backend& backend() { return *backend_; }
  void submit(Session* s, const SimRequest& r) {
    sessions_[r.id] = s;
    backend_->submit(r, now_ns());
    pump();
  }
  void cancel(std::uint64_t id) {
    if (sessions_.erase(id) == 0) return;
    backend_->cancel(id, now_ns());
    pump();
  }
  void shutdown() { timer_.cancel(); sessions_.clear(); }

 private:
  void pump();
  void rearm(std::optional<Nanos> next);

  asio::steady_timer timer_;
  std::unique_ptr<Backend> backend_;
  std::vector<TokenEvent> events_;                     // reused on every wake-up
  std::unordered_map<std::uint64_t, Session*> sessions_;
  Nanos armed_ns_ = -1;
  Nanos woke_ns_ = 0;  // last timer wake-up
};

// What every connection shares: options, backend hub, token log, fault injector.
struct Shared {
  Shared(asio::io_context& ioc, ServerOptions o, std::unique_ptr<Backend> b)
      : opt(std::move(o)), hub(ioc, std::move(b)), faults(opt.faults) {
    if (!opt.token_log_path.empty()) log.emplace(opt.token_log_path);
    model.id = opt.served_model_name;
    model.root = opt.model_root;
    model.max_model_len = opt.max_model_len;
    model.time_scale = hub.backend().time_scale();
    model.created_s = unix_now_ns() / 1'000'000'000;
  }
  ServerOptions opt;
  Hub hub;
  FaultInjector faults;
  std::optional<TokenLog> log;
  ModelInfo model;
  std::uint64_t next_id = 0;
};

class Session {
 public:
  Session(tcp::socket sock, std::shared_ptr<Shared> shared)
      : sock_(std::move(sock)), signal_(sock_.get_executor()), sh_(std::move(shared)) {
    out_.reserve(4096);
    sending_.reserve(4096);
  }
  // `self` keeps the session alive for the coroutine's whole life (a parameter lives in the frame).
  asio::awaitable<void> run(std::shared_ptr<Session> self);
  // Called by the hub with tokens of this session's generation.
  void on_tokens(const TokenEvent& ev) {
    if (!gen_) return;
    gen_->on_tokens(out_, ev);
    // A non-streaming response has nothing to write before the end: wake it once, not per token.
    if (waiting_ && (gen_->streaming() || gen_->done())) signal_.cancel();
  }

 private:
  asio::awaitable<bool> handle(const Request& req);
  std::optional<Reply> route(const Request& req, Api& api);
  asio::awaitable<bool> generate(const Request& req, Api api);
  asio::awaitable<bool> stream_out(std::uint64_t id, bool keep_alive);
  asio::awaitable<bool> send(const Reply& r, bool keep_alive);
  asio::awaitable<bool> write_out();
  std::optional<Reply> start_generation(const Request& req, Api api, SimRequest& sim);
  void log_sent(std::uint64_t id, Nanos sent_ns);

  tcp::socket sock_;
  asio::steady_timer signal_;   // a condition variable: cancelled when tokens arrive
  std::shared_ptr<Shared> sh_;
  beast::flat_buffer buf_;
  std::string out_, sending_;
  std::optional<StreamState> gen_;
  int logged_ = 0;              // tokens of gen_ already in the token log
  bool waiting_ = false;
};

void Hub::pump() {
  events_.clear();
  const auto next = backend_->advance(now_ns(), events_);
  for (const TokenEvent& ev : events_) {
    auto it = sessions_.find(ev.id);
    if (it == sessions_.end()) continue;
    Session* s = it->second;
    if (ev.finished) sessions_.erase(it);
    s->on_tokens(ev);
  }
  rearm(next);
}

// Waking for each of thousands of staggered deadlines costs a timerfd re-arm and an epoll round per
// token; one wake-up per 50 µs serves all due by then (late by <= 50 µs, never early; backends keep
// absolute deadlines). sim_events, 5,000 streams: 7.5-8.2 -> 6.3-7.3 server-CPU-µs per token.
constexpr Nanos kWakeGapNs = 50'000;

void Hub::rearm(std::optional<Nanos> next) {
  if (!next) return;  // idle: a pending wait, if any, just finds nothing to do
  const Nanos at = std::max(*next, woke_ns_ + kWakeGapNs);
  if (armed_ns_ == at) return;
  armed_ns_ = at;
  timer_.expires_at(to_time_point(at));  // absolute deadline: no drift
  timer_.async_wait([this](const boost::system::error_code& ec) {
    if (ec == asio::error::operation_aborted) return;
    armed_ns_ = -1;
    woke_ns_ = now_ns();
    pump();
  });
}

asio::awaitable<void> Session::run([[maybe_unused]] std::shared_ptr<Session> self) {
  beast::error_code opt_ec;
  sock_.set_option(tcp::no_delay(true), opt_ec);  // SSE is many small writes: never wait for Nagle
  for (;;) {
    http::request_parser<http::string_body> parser;
    parser.body_limit(64u << 20);
    beast::error_code ec;
    co_await http::async_read_header(sock_, buf_, parser, asio::redirect_error(asio::use_awaitable, ec));
    // curl sends "Expect: 100-continue" with larger bodies and would wait a second for this.
    if (!ec && beast::iequals(parser.get()[http::field::expect], "100-continue")) {
      out_ += "HTTP/1.1 100 Continue\r\n\r\n";
      if (!co_await write_out()) break;
    }
    if (!ec && !parser.is_done()) {
      co_await http::async_read(sock_, buf_, parser, asio::redirect_error(asio::use_awaitable, ec));
    }
    if (ec) {
      const bool protocol_error = ec.category() == http::make_error_code(http::error::bad_target).category() &&
                                  ec != http::error::end_of_stream;
      if (protocol_error) {
        const Reply bad = error_reply(400, "malformed HTTP request: " + ec.message());
        co_await send(bad, false);
      }
      break;
    }
    const Request& req = parser.get();
    const bool keep_alive = req.keep_alive();
    if (!co_await handle(req) || !keep_alive) break;
  }
  beast::error_code ignored;
  sock_.shutdown(tcp::socket::shutdown_send, ignored);
  sock_.close(ignored);
}

asio::awaitable<bool> Session::handle(const Request& req) {
  Api api = Api::completions;
  const std::optional<Reply> reply = route(req, api);
  if (!reply) co_return co_await generate(req, api);
  co_return co_await send(*reply, req.keep_alive());
}

// Everything but generation, without I/O: the reply, or nullopt for a generation request.
std::optional<Reply> Session::route(const Request& req, Api& api) {
  std::string_view target = sv(req.target());
  target = target.substr(0, target.find('?'));
  const bool get = req.method() == http::verb::get, post = req.method() == http::verb::post;
  if (target.starts_with("/v1/") && !authorized(sv(req[http::field::authorization]), sh_->opt.api_key)) {
    return error_reply(401, "invalid or missing API key (expected Authorization: Bearer <key>)");
  }
  Backend& backend = sh_->hub.backend();
  if (get && target == "/health") return Reply{200, "application/json", ""};
  if (get && target == "/v1/models") return models_reply(sh_->model);
  if (get && target == "/metrics") {
    Reply r{200, "text/plain; version=0.0.4; charset=utf-8", {}};
    backend.render_metrics(r.body, sh_->opt.served_model_name);
    return r;
  }
  if (post && (target == "/v1/completions" || target == "/v1/chat/completions")) {
    api = target == "/v1/completions" ? Api::completions : Api::chat;
    return std::nullopt;
  }
  if (post && (target == "/start_profile" || target == "/stop_profile")) {
    const bool ok = target == "/start_profile" ? backend.start_profile(now_ns()) : backend.stop_profile(now_ns());
    if (ok) return Reply{200, "application/json", ""};
    return error_reply(404, "profiling is not supported by this backend");
  }
  const Tokenizer* tok = sh_->opt.tokenizer.get();
  if (post && target == "/tokenize" && tok) return tokenize_reply(req.body(), *tok, sh_->model);
  if (post && target == "/detokenize" && tok) return detokenize_reply(req.body(), *tok);
  return Reply{404, "application/json", "{\"detail\":\"Not Found\"}"};
}

// Validates the request and prepares gen_; returns the error reply instead when it must not run.
std::optional<Reply> Session::start_generation(const Request& req, Api api, SimRequest& sim) {
  const ServerOptions& opt = sh_->opt;
  ParsedRequest p;
  std::string error;
  if (!parse_request(req.body(), api, p, error)) return error_reply(400, error);
  if (!p.model.empty() && p.model != opt.served_model_name) return unknown_model_reply(p.model);
  int prompt_tokens = p.prompt_token_ids;
  if (prompt_tokens < 0) {
    prompt_tokens = opt.tokenizer ? static_cast<int>(opt.tokenizer->count(p.prompt_text, true))
                                  : approx_prompt_tokens(p.prompt_text);
  }
  const int max_tokens = p.max_tokens > 0 ? p.max_tokens : opt.default_max_tokens;
  if (auto too_long = context_length_refusal(prompt_tokens, max_tokens, opt.max_model_len)) return too_long;
  sim.id = ++sh_->next_id;
  const std::string_view header_id = sv(req["x-request-id"]);
  const std::string request_id = header_id.empty() ? "sim-" + std::to_string(sim.id) : std::string(header_id);
  const FaultPlan fault = sh_->faults.pick(request_id, max_tokens);
  if (fault.kind == FaultKind::fail) {
    return error_reply(sh_->faults.fail_status(), "injected fault (--fail-ratio)");
  }
  sim.prompt_tokens = prompt_tokens;
  sim.max_tokens = max_tokens;
  sim.ignore_eos = p.ignore_eos;
  sim.seed = p.seed ? *p.seed : hash_key(opt.seed, request_id);
  gen_.emplace(StreamSetup{api, p.stream, p.include_usage, opt.usage_in_last_chunk,
                           (api == Api::chat ? "chatcmpl-" : "cmpl-") + request_id, opt.served_model_name,
                           unix_now_ns() / 1'000'000'000, prompt_tokens, max_tokens, sim.seed, fault,
                           opt.dialect == Dialect::llama_cpp});
  if (sh_->log) sh_->log->begin(sim.id, request_id);
  logged_ = 0;
  return std::nullopt;
}

asio::awaitable<bool> Session::generate(const Request& req, Api api) {
  SimRequest sim;
  const bool keep = req.keep_alive();
  const std::optional<Reply> refused = start_generation(req, api, sim);
  if (refused) co_return co_await send(*refused, keep);
  if (gen_->streaming()) gen_->begin(out_, keep);
  sh_->hub.submit(this, sim);
  const bool ok = co_await stream_out(sim.id, keep);
  if (sh_->log) sh_->log->end(sim.id);
  gen_.reset();
  co_return ok && keep;
}

// Writes whatever the hub appended until the generation is done; false when the connection died
// or a drop fault closed it.
asio::awaitable<bool> Session::stream_out(std::uint64_t id, bool keep_alive) {
  for (;;) {
    const bool ready = gen_->streaming() ? !out_.empty() || gen_->done() : gen_->done();
    if (!ready) {
      waiting_ = true;
      signal_.expires_at(std::chrono::steady_clock::time_point::max());
      beast::error_code ec;
      co_await signal_.async_wait(asio::redirect_error(asio::use_awaitable, ec));
      waiting_ = false;
      continue;
    }
    if (gen_->streaming()) gen_->seal(out_);
    else gen_->append_full_response(out_, keep_alive);
    log_sent(id, now_ns());
    if (!co_await write_out()) {
      sh_->hub.cancel(id);
      co_return false;
    }
    if (gen_->drop_now()) {
      sh_->hub.cancel(id);
      beast::error_code ignored;
      sock_.close(ignored);
      co_return false;
    }
    if (gen_->done() && out_.empty()) co_return true;
  }
}

void Session::log_sent(std::uint64_t id, Nanos sent_ns) {
  if (!sh_->log) return;
  for (; logged_ < gen_->emitted(); ++logged_) sh_->log->token(id, logged_, sent_ns);
}

asio::awaitable<bool> Session::write_out() {
  std::swap(out_, sending_);
  out_.clear();
  beast::error_code ec;
  co_await asio::async_write(sock_, asio::buffer(sending_), asio::redirect_error(asio::use_awaitable, ec));
  sending_.clear();
  co_return !ec;
}

asio::awaitable<bool> Session::send(const Reply& r, bool keep_alive) {
  append_head(out_, {r.status, r.content_type, false, r.body.size(), keep_alive});
  out_ += r.body;
  co_return co_await write_out() && keep_alive;
}

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
