#pragma once
// One client connection of the simulator's front end (server.hpp): HTTP/1.1 requests read in turn,
// every endpoint but generation answered from server_routes, a generation submitted to the hub
// and its response (server_stream's StreamState) written as the hub hands it tokens. Names Asio and
// Beast types: only the server's translation units (server.cpp, server_session.cpp,
// server_hub.cpp) include it.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>

#include "core/clock.hpp"
#include "protocol/api.hpp"
#include "sim/backend.hpp"
#include "sim/faults.hpp"
#include "sim/server.hpp"
#include "sim/server_hub.hpp"
#include "sim/server_routes.hpp"
#include "sim/server_stream.hpp"
#include "sim/token_log.hpp"

namespace sb::sim {

// What every connection shares: options, backend hub, token log, fault injector.
struct Shared {
  Shared(boost::asio::io_context& ioc, ServerOptions o, std::unique_ptr<Backend> b)
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
  Session(boost::asio::ip::tcp::socket sock, std::shared_ptr<Shared> shared)
      : sock_(std::move(sock)), signal_(sock_.get_executor()), sh_(std::move(shared)) {
    out_.reserve(4096);
    sending_.reserve(4096);
  }
  // `self` keeps the session alive for the coroutine's whole life (a parameter lives in the frame).
  boost::asio::awaitable<void> run(std::shared_ptr<Session> self);
  // Called by the hub with tokens of this session's generation.
  void on_tokens(const TokenEvent& ev) {
    if (!gen_) return;
    gen_->on_tokens(out_, ev);
    // A non-streaming response has nothing to write before the end: wake it once, not per token.
    if (waiting_ && (gen_->streaming() || gen_->done())) signal_.cancel();
  }

 private:
  using Request = boost::beast::http::request<boost::beast::http::string_body>;

  boost::asio::awaitable<bool> handle(const Request& req);
  std::optional<Reply> route(const Request& req, Api& api);
  boost::asio::awaitable<bool> generate(const Request& req, Api api);
  boost::asio::awaitable<bool> stream_out(std::uint64_t id, bool keep_alive);
  boost::asio::awaitable<bool> send(const Reply& r, bool keep_alive);
  boost::asio::awaitable<bool> write_out();
  std::optional<Reply> start_generation(const Request& req, Api api, SimRequest& sim);
  void log_sent(std::uint64_t id, Nanos sent_ns);

  boost::asio::ip::tcp::socket sock_;
  boost::asio::steady_timer signal_;   // a condition variable: cancelled when tokens arrive
  std::shared_ptr<Shared> sh_;
  boost::beast::flat_buffer buf_;
  std::string out_, sending_;
  std::optional<StreamState> gen_;
  int logged_ = 0;              // tokens of gen_ already in the token log
  bool waiting_ = false;
};

}  // namespace sb::sim
