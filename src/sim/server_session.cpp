// A connection's request loop, its routing, and a generation's response written as the hub hands
// it tokens. The formatting itself is server_stream / server_routes (sans-I/O).
#include "sim/server_session.hpp"

#include <chrono>
#include <string_view>

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include "net/server_http.hpp"
#include "protocol/request_id.hpp"
#include "sim/request_parse.hpp"
#include "tokenizer/tokenizer.hpp"

namespace sb::sim {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

std::string_view sv(beast::string_view s) { return {s.data(), s.size()}; }

}  // namespace

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
  // The draws key on the request's name in its run, not on servebench's per-run tag: the same run
  // against the same --seed fails (and ends) the same requests, whatever else arrived before them.
  const std::string_view draw_key = request_name_in_run(request_id);
  const FaultPlan fault = sh_->faults.pick(draw_key, max_tokens);
  if (fault.kind == FaultKind::fail) {
    return error_reply(sh_->faults.fail_status(), "injected fault (--fail-ratio)");
  }
  sim.prompt_tokens = prompt_tokens;
  sim.max_tokens = max_tokens;
  sim.ignore_eos = p.ignore_eos;
  sim.seed = p.seed ? *p.seed : hash_key(opt.seed, draw_key);
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

}  // namespace sb::sim
