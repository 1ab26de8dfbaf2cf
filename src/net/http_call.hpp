#pragma once
// Blocking one-shot HTTP/1.1 calls for the cold path (preflight GET /v1/models, POST /tokenize,
// /start_profile, GET /metrics: src/target/). Each call owns its io_context and one net::Connection
// (connection.hpp: the load client's connection type, so TLS behaves the same); never used while a
// stage runs.
#include <string>
#include <utility>
#include <vector>

#include "net/endpoint.hpp"

namespace sb {

using HeaderList = std::vector<std::pair<std::string, std::string>>;

struct HttpReply {
  int status = 0;
  std::string reason;
  std::string body;
  std::string content_type;
  std::string server;  // the Server header ("" if none): one clue to the engine (target/engine.hpp)
};

// Transport failures throw sb::UserError with ExitCode::unreachable and a message naming host:port
// and what to check (connection refused -> check the port and a 127.0.0.1 vs 0.0.0.0 bind; DNS;
// TLS verification; timeout). HTTP error statuses are returned, not thrown, with any credential
// the request carried (and anything shaped like an sk- key) masked in their body and reason.
HttpReply http_call(const Endpoint& ep, std::string_view method, std::string_view path,
                    const HeaderList& headers, std::string_view body, double timeout_s);

}  // namespace sb
